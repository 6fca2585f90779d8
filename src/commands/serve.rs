//! `kura serve [--port N] [--listen ADDR]`: the stored runs in a browser,
//! read-only, on 127.0.0.1 unless `--listen` says otherwise.

use anyhow::Result;

use super::{Ctx, signal_flag};
use crate::cli::ServeArgs;
use crate::report::serve::{listen_on, serve};

pub fn run(ctx: &Ctx, args: ServeArgs) -> Result<i32> {
    let listen = listen_on(&args.port, args.listen.as_deref())?;
    let path = ctx.db_path();
    let store = ctx.following_store()?;
    let stop = signal_flag()?;
    if listen.explicit && !listen.addr.ip().is_loopback() {
        eprintln!(
            "kura: warning: serving on {}: anyone who can reach it reads every stored run (no login)",
            listen.addr
        );
    }
    let json = ctx.json;
    serve(&store, listen, &stop, |addr| {
        // The one line on stdout: scripts and tests read the address from it.
        if json {
            // One compact line, printed while the server keeps running.
            let doc = serde_json::json!({
                "schema_version": crate::report::SCHEMA_VERSION,
                "url": format!("http://{addr}/"),
                "database": path.display().to_string(),
            });
            println!("{doc}");
        } else {
            // The address first, whole; the rest wraps at 80 columns.
            let line = format!(
                "kura serve: http://{addr}/ (database {}; Ctrl-C stops)",
                path.display()
            );
            print!("{}", crate::report::width::wrap("", &line, 2));
        }
    })?;
    if !ctx.quiet {
        eprintln!("kura serve: stopped");
    }
    Ok(0)
}
