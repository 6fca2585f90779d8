//! sysbench's `oltp_read_write` (oltp_common.lua and oltp_read_write.lua of
//! sysbench 1.0.20): tables `sbtestN` of `table_size` rows, and threads
//! running transactions of 10 point selects, a simple range, a SUM range,
//! an ORDER BY range and a DISTINCT range (100 ids each), an index update,
//! a non-index update and a delete+insert, for a fixed time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::session::{Connector, DbError, Param, Recorded, Session};
use crate::jobs::db_params::DbParams;

/// oltp_common.lua's defaults.
const RANGE_SIZE: i64 = 100;
const POINT_SELECTS: u32 = 10;
/// sysbench's default `--rand-type=special` (`--rand-spec-pct=1`,
/// `--rand-spec-res=75`): 75 % of ids fall in 1 % of the table.
const SPECIAL_PCT: f64 = 0.01;
const SPECIAL_RES: f64 = 0.75;

/// Ids the way sysbench's default distribution draws them.
fn special_id(rng: &mut SmallRng, size: i64) -> i64 {
    let hot = ((size as f64 * SPECIAL_PCT) as i64).max(1);
    if rng.random::<f64>() < SPECIAL_RES {
        // The hot ids sit in the middle of the table.
        let start = (size - hot) / 2;
        1 + start + rng.random_range(0..hot)
    } else {
        rng.random_range(1..=size)
    }
}

/// sysbench's `c` and `pad` templates: groups of 11 random digits joined by dashes.
fn digits(rng: &mut SmallRng, groups: usize) -> String {
    let mut s = String::with_capacity(groups * 12);
    for g in 0..groups {
        if g > 0 {
            s.push('-');
        }
        for _ in 0..11 {
            s.push(char::from(b'0' + rng.random_range(0..10u8)));
        }
    }
    s
}

/// `sysbench oltp_read_write prepare`: the tables, their rows (one
/// transaction per table, as sysbench's bulk insert), and the index on k.
pub fn prepare(s: &mut Session<'_>, p: &DbParams) -> Result<(), DbError> {
    let mut rng = SmallRng::seed_from_u64(p.seed);
    let size = p.oltp_table_size as i64;
    for t in 1..=p.oltp_tables {
        s.write(&format!("DROP TABLE IF EXISTS sbtest{t}"))?;
        s.write(&format!(
            "CREATE TABLE sbtest{t} (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, \
             c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
        ))?;
        s.begin()?;
        let insert = format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)");
        for id in 1..=size {
            let row = [
                Param::Int(id),
                Param::Int(rng.random_range(1..=size)),
                Param::Text(digits(&mut rng, 10)),
                Param::Text(digits(&mut rng, 5)),
            ];
            s.write_with(&insert, &row)?;
        }
        s.commit()?;
        s.write(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)"))?;
    }
    Ok(())
}

/// One transaction of oltp_read_write.lua's `event()`.
fn transaction(s: &mut Session<'_>, rng: &mut SmallRng, p: &DbParams) -> Result<(), DbError> {
    let size = p.oltp_table_size as i64;
    let table = |rng: &mut SmallRng| rng.random_range(1..=p.oltp_tables);
    s.begin()?;
    let t = table(rng);
    let point = format!("SELECT c FROM sbtest{t} WHERE id=?");
    for _ in 0..POINT_SELECTS {
        let id = special_id(rng, size);
        s.read_with(&point, &[Param::Int(id)])?;
    }
    for q in [
        "SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ?",
        "SELECT SUM(k) FROM sbtest{} WHERE id BETWEEN ? AND ?",
        "SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c",
        "SELECT DISTINCT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c",
    ] {
        let sql = q.replace("{}", &table(rng).to_string());
        let id = special_id(rng, size);
        s.read_with(&sql, &[Param::Int(id), Param::Int(id + RANGE_SIZE - 1)])?;
    }
    let t = table(rng);
    let id = special_id(rng, size);
    s.write_with(
        &format!("UPDATE sbtest{t} SET k=k+1 WHERE id=?"),
        &[Param::Int(id)],
    )?;
    let t = table(rng);
    let c = digits(rng, 10);
    let id = special_id(rng, size);
    s.write_with(
        &format!("UPDATE sbtest{t} SET c=? WHERE id=?"),
        &[Param::Text(c), Param::Int(id)],
    )?;
    let t = table(rng);
    let id = special_id(rng, size);
    let k = special_id(rng, size);
    s.write_with(&format!("DELETE FROM sbtest{t} WHERE id=?"), &[Param::Int(id)])?;
    let row = [
        Param::Int(id),
        Param::Int(k),
        Param::Text(digits(rng, 10)),
        Param::Text(digits(rng, 5)),
    ];
    s.write_with(
        &format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        &row,
    )?;
    s.commit()
}

/// What the threads measured together.
pub struct Outcome {
    pub rec: Recorded,
    pub elapsed: Duration,
    /// The first error of any thread, if one stopped.
    pub error: Option<DbError>,
    /// Transactions rolled back on a deadlock or duplicate key and run again
    /// (sysbench's "ignored errors").
    pub retried: u64,
}

/// Runs the mix on `threads` connections for the run's time (or until Ctrl-C).
pub fn run(connector: &dyn Connector, p: &DbParams, stop: &AtomicBool) -> Outcome {
    let deadline = Duration::from_millis(p.oltp_time_ms);
    let quit = AtomicBool::new(false);
    let start = Instant::now();
    let results: Vec<(Recorded, Option<DbError>, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..p.oltp_threads)
            .map(|thread| {
                let quit = &quit;
                std::thread::Builder::new()
                    .name(format!("kura-oltp-{thread}"))
                    .spawn_scoped(scope, move || {
                        let mut rng = SmallRng::seed_from_u64(p.seed ^ (u64::from(thread) + 1) << 32);
                        let mut s = match Session::open(connector, quit) {
                            Ok(s) => s,
                            Err(e) => return (Recorded::default(), Some(e), 0),
                        };
                        let mut retried = 0;
                        while start.elapsed() < deadline && !stop.load(Ordering::Relaxed) {
                            if let Err(e) = transaction(&mut s, &mut rng, p) {
                                // A transaction cut short is not counted, as sysbench drops an unfinished event.
                                s.rollback();
                                match e {
                                    DbError::Retry { .. } => retried += 1,
                                    DbError::Stopped => break,
                                    e => {
                                        quit.store(true, Ordering::Relaxed);
                                        return (s.rec, Some(e), retried);
                                    }
                                }
                            }
                        }
                        (s.rec, None, retried)
                    })
                    .expect("spawning an OLTP thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("OLTP thread panicked"))
            .collect()
    });
    let elapsed = start.elapsed();
    let mut rec = Recorded::default();
    let mut error = None;
    let mut retried = 0;
    for (r, e, n) in results {
        rec.merge(&r);
        retried += n;
        if error.is_none() {
            error = e.filter(|e| !matches!(e, DbError::Stopped));
        }
    }
    Outcome {
        rec,
        elapsed,
        error,
        retried,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_ids_stay_in_the_table_and_three_quarters_are_hot() {
        let mut rng = SmallRng::seed_from_u64(1);
        let size = 10_000;
        let ids: Vec<i64> = (0..20_000).map(|_| special_id(&mut rng, size)).collect();
        assert!(ids.iter().all(|i| (1..=size).contains(i)));
        let hot = ids.iter().filter(|i| (4951..=5050).contains(*i)).count();
        let share = hot as f64 / ids.len() as f64;
        assert!((0.72..0.79).contains(&share), "{share}");
        let c = digits(&mut rng, 10);
        assert_eq!(c.len(), 119);
        assert_eq!(c.matches('-').count(), 9);
    }
}
