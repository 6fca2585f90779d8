use clap::Parser;
use clap::error::ErrorKind;
use kura::report::escape::term;

fn main() {
    let cli = match kura::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) => {
            // Bad flags get the same one-line shape as every other kura error.
            eprintln!("kura: {}", term(&one_line(&e.to_string())));
            std::process::exit(2);
        }
    };
    let code = match kura::commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kura: error: {}", term(&error_text(&e)));
            2
        }
    };
    std::process::exit(code);
}

/// The error and those of its causes that add something: a message that
/// already quotes its cause (`cannot read x: No such file or directory`)
/// is not followed by the cause again.
fn error_text(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
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
