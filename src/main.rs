use clap::Parser;
use clap::error::ErrorKind;

fn main() {
    let cli = match kura::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) => {
            // Bad flags get the same one-line shape as every other kura error.
            eprintln!("kura: {}", one_line(&e.to_string()));
            std::process::exit(2);
        }
    };
    let code = match kura::commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kura: error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}

/// clap's message without its usage block and help hint, on one line.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join("; ")
}
