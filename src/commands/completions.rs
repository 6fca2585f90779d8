//! `kura completions SHELL` and `kura man [VERB]`: made from the same clap
//! definitions as `--help` (src/cli.rs), so they cannot drift from it.

use anyhow::{Result, bail};
use clap::CommandFactory;

use super::Ctx;
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::report::emit;

/// A script that asked for JSON is told it gets none, rather than parsing
/// a shell script or roff as JSON.
fn refuse_json(ctx: &Ctx, verb: &str, prints: &str) -> Result<()> {
    if ctx.json {
        bail!("--json: {verb} prints {prints}, not JSON");
    }
    Ok(())
}

pub fn completions(ctx: &Ctx, args: CompletionsArgs) -> Result<i32> {
    refuse_json(ctx, "completions", "a shell script")?;
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "kura", &mut out);
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}

pub fn man(ctx: &Ctx, args: ManArgs) -> Result<i32> {
    refuse_json(ctx, "man", "a roff page")?;
    let mut cmd = Cli::command();
    cmd.build();
    let mut page = cmd;
    let mut name = vec!["kura".to_string()];
    for verb in &args.verb {
        let Some(sub) = page.find_subcommand(verb).cloned() else {
            bail!("man: '{}' is not a verb of `{}`", verb, name.join(" "));
        };
        name.push(verb.clone());
        // build() gave it the display name `kura-suite-tiobench`, the page's title.
        page = sub;
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}
