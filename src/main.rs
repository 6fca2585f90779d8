use clap::Parser;

fn main() {
    let cli = kura::cli::Cli::parse();
    let code = match kura::commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kura: error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}
