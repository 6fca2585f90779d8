//! `kura launch`: mpirun started for the user, so that when MPI cannot
//! start the ranks (a host in the hostfile unreachable, too few slots, no
//! ssh key) its multi-line banner becomes one line naming what failed.
//! Lines from kura itself pass through as they come; MPI's own are held
//! and, when the run fails, condensed; when it succeeds, shown as they were.

/// Whether a line of mpirun's stderr is MPI's (or ssh's, which it runs)
/// rather than kura's; `in_banner` tracks Open MPI's dashed boxes.
pub fn is_mpi_line(line: &str, in_banner: &mut bool) -> bool {
    let t = line.trim_end();
    if t.starts_with("-----") {
        *in_banner = !*in_banner;
        return true;
    }
    if *in_banner {
        return true;
    }
    const MPI: [&str; 14] = [
        "ssh:",
        "ssh_askpass",
        "Connection ",
        "Permission denied",
        "Host key verification",
        "Warning: Permanently added",
        "kex_exchange_identification",
        "mpirun",
        "prterun",
        "ORTE",
        "PRTE",
        "[",
        "bash: ",
        "sh: ",
    ];
    MPI.iter().any(|p| t.starts_with(p))
}

/// MPI's held lines as one: the first line from ssh or mpirun outside a
/// banner, and the first paragraph of the first banner.
pub fn condense(held: &[String]) -> String {
    let mut in_banner = false;
    let mut seen_banner = false;
    let mut outside = None;
    let mut paragraph: Vec<&str> = Vec::new();
    let mut paragraph_done = false;
    for line in held {
        let t = line.trim();
        if t.starts_with("-----") {
            in_banner = !in_banner;
            if !in_banner {
                seen_banner = true;
                paragraph_done = true;
            }
            continue;
        }
        if in_banner && !seen_banner && !paragraph_done {
            if t.is_empty() {
                paragraph_done = !paragraph.is_empty();
            } else {
                paragraph.push(t);
            }
        } else if !in_banner && outside.is_none() && !t.is_empty() {
            outside = Some(t);
        }
    }
    let mut banner = paragraph.join(" ");
    // "... daemons. This usually is caused by:" (a list follows, left out).
    if banner.ends_with(':') {
        match banner.rfind(". ") {
            Some(at) => banner.truncate(at + 1),
            None => {
                banner.pop();
            }
        }
    }
    match (outside, banner.is_empty()) {
        (Some(o), false) => format!("{o}; {banner}"),
        (Some(o), true) => o.to_string(),
        (None, false) => banner,
        (None, true) => "mpirun failed and said nothing".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Open MPI 4.1's mpirun printed here for a hostfile naming a host
    /// that does not answer.
    const UNREACHABLE: &str = "Connection to 10.254.254.1 port 22 timed out
--------------------------------------------------------------------------
ORTE was unable to reliably start one or more daemons.
This usually is caused by:

* not finding the required libraries and/or binaries on
  one or more nodes. Please check your PATH and LD_LIBRARY_PATH
--------------------------------------------------------------------------
";

    const SLOTS: &str = "--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 9
slots that were requested by the application:

  kura

Either request fewer slots for your application, or make more slots
--------------------------------------------------------------------------
";

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn mpirun_banners_become_one_line() {
        let mut in_banner = false;
        assert!(lines(UNREACHABLE).iter().all(|l| is_mpi_line(l, &mut in_banner)));
        assert_eq!(
            condense(&lines(UNREACHABLE)),
            "Connection to 10.254.254.1 port 22 timed out; ORTE was unable to reliably start one or more daemons."
        );
        assert_eq!(
            condense(&lines(SLOTS)),
            "There are not enough slots available in the system to satisfy the 9 slots that were requested by the application"
        );
        let mut in_banner = false;
        assert!(!is_mpi_line(
            "kura: error: ranks 2 (node3) were given other jobs",
            &mut in_banner
        ));
        assert!(!is_mpi_line(
            "warning: /mnt/x.dat.0 (16 MB) was written",
            &mut in_banner
        ));
    }
}
