use clap::Parser;
use clap::error::ErrorKind;
use kura::report::escape::term;

fn main() {
    let cli = match kura::cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) if e.kind() == ErrorKind::UnknownArgument && fio_flag(&e).is_some() => {
            // fio's option typed as a flag: what it is in kura, not clap's tip.
            eprintln!("kura: error: {}", term(&fio_flag(&e).unwrap_or_default()));
            std::process::exit(2);
        }
        Err(e) => {
            // Bad flags get the same one-line shape as every other kura error.
            eprintln!("kura: {}", term(&one_line(&e.to_string())));
            std::process::exit(2);
        }
    };
    let code = match kura::commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            // One write, not eprintln!'s three: a launcher forwarding a rank's
            // output (mpirun) put its own banner inside the line otherwise.
            let line = format!("kura: {}{}\n", kura::t!("error-prefix"), term(&error_text(&e)));
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            2
        }
    };
    std::process::exit(code);
}

/// The line for an unknown flag that is one of fio's options.
fn fio_flag(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    match e.get(ContextKind::InvalidArg)? {
        ContextValue::String(arg) => kura::jobs::fio_file::flags::unknown_flag(arg),
        _ => None,
    }
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

#[cfg(test)]
mod tests {
    use super::error_text;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read x: {0}")]
    struct Quoting(#[source] std::io::Error);

    #[test]
    fn causes_already_quoted_are_not_repeated() {
        let io = || std::io::Error::from_raw_os_error(2);
        let e = anyhow::Error::new(Quoting(io()));
        assert_eq!(
            error_text(&e),
            "cannot read x: No such file or directory (os error 2)"
        );
        let e = anyhow::Error::new(io()).context("opening the database");
        assert_eq!(
            error_text(&e),
            "opening the database: No such file or directory (os error 2)"
        );
        let e = anyhow::Error::new(Quoting(io()))
            .context("cannot read x: No such file or directory (os error 2)");
        assert_eq!(error_text(&e).matches("os error 2").count(), 1);
    }
}
