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
/// `--rand-spec-res=75`, `--rand-spec-iter=12`; src/sb_rand.c of 1.0.20).
const SPECIAL_PCT: f64 = 1.0;
const SPECIAL_RES: f64 = 75.0;
const SPECIAL_ITER: u32 = 12;

/// An id in `1..=size` the way sysbench 1.0.20's `sb_rand_special(1, size)`
/// draws it: 75 % uniformly from a band of 1 % of the table in its middle,
/// the other 25 % from a bell (the mean of 12 uniform draws) centred on the
/// middle too; `oltp_common.lua`'s `get_id()` and the `k` of `prepare`.
fn special_id(rng: &mut SmallRng, size: i64) -> i64 {
    let t = (size - 1) as f64;
    let rnd = rng.random::<f64>();
    if rnd * t * (100.0 / (100.0 - SPECIAL_RES)) < t {
        let sum: f64 = (0..SPECIAL_ITER).map(|_| rng.random::<f64>()).sum();
        return 1 + (sum * t / f64::from(SPECIAL_ITER)) as i64;
    }
    let d = t * SPECIAL_PCT / 100.0;
    1 + (rnd * (d + 1.0) + t / 2.0 - t * SPECIAL_PCT / 200.0) as i64
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

/// sysbench's `BULK_PACKET_SIZE` (src/db_driver.c): a multi-row INSERT
/// is sent when the next row would take it past 512 KiB.
const BULK_PACKET: usize = 512 * 1024;

/// `sysbench oltp_read_write prepare` (`create_table` of oltp_common.lua):
/// the tables, their rows as multi-row INSERTs of up to 512 KiB in
/// autocommit mode (sysbench's bulk insert, src/db_driver.c), and the index
/// on k. The server then holds what sysbench's prepare leaves.
pub fn prepare(s: &mut Session<'_>, p: &DbParams) -> Result<(), DbError> {
    let mut rng = SmallRng::seed_from_u64(p.seed);
    let size = p.oltp_table_size as i64;
    for t in 1..=p.oltp_tables {
        s.write(&format!("DROP TABLE IF EXISTS sbtest{t}"))?;
        s.write(&format!(
            "CREATE TABLE sbtest{t} (id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, \
             c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
        ))?;
        let head = format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES ");
        let mut sql = head.clone();
        let mut rows = 0;
        for id in 1..=size {
            // Digits and dashes only: nothing to quote.
            let row = format!(
                "({id}, {}, '{}', '{}')",
                special_id(&mut rng, size),
                digits(&mut rng, 10),
                digits(&mut rng, 5)
            );
            if rows > 0 && sql.len() + 1 + row.len() > BULK_PACKET {
                s.write(&sql)?;
                sql.truncate(head.len());
                rows = 0;
            }
            if rows > 0 {
                sql.push(',');
            }
            sql.push_str(&row);
            rows += 1;
        }
        if rows > 0 {
            s.write(&sql)?;
        }
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
pub fn run(connector: &dyn Connector, p: &DbParams, stop: &AtomicBool, interval: Duration) -> Outcome {
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
                        let mut s = match Session::open_lean(connector, quit) {
                            Ok(s) => s.timed(thread, start, interval),
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
                                        return (s.into_recorded(), Some(e), retried);
                                    }
                                }
                            }
                        }
                        (s.into_recorded(), None, retried)
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
    fn special_ids_are_sysbench_1_0_20s() {
        let mut rng = SmallRng::seed_from_u64(1);
        let size = 10_000;
        let ids: Vec<i64> = (0..20_000).map(|_| special_id(&mut rng, size)).collect();
        assert!(ids.iter().all(|i| (1..=size).contains(i)));
        // sysbench's band for 1..=10000: 4975..=5051 (75 %, plus the bell's share of it).
        let hot = ids.iter().filter(|i| (4975..=5051).contains(*i)).count();
        let share = hot as f64 / ids.len() as f64;
        assert!((0.73..0.79).contains(&share), "{share}");
        // The rest is a bell on the middle (sd about size / 12), not uniform: next to
        // nothing beyond 4 sd.
        let far = ids.iter().filter(|i| (**i - 5000).abs() > 3400).count();
        assert!(far < 20, "{far}");
        assert!(ids.iter().any(|i| !(4975..=5051).contains(i)));
        // The smallest table: both ids.
        let tiny: Vec<i64> = (0..1000).map(|_| special_id(&mut rng, 2)).collect();
        assert!(tiny.iter().all(|i| (1..=2).contains(i)), "{tiny:?}");
        let c = digits(&mut rng, 10);
        assert_eq!(c.len(), 119);
        assert_eq!(c.matches('-').count(), 9);
    }
}
