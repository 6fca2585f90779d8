//! fio's token-based flow control (`flow`, `flow_id`, `flow_sleep`; fio
//! 3.33 flow.c): the threads of jobs running together with the same
//! `flow_id` share a counter of I/Os issued, and a thread whose share of it
//! is above its share of the flow's weights waits (`flow_sleep`, or until
//! the others catch up) before it issues another. fio's `flow.fio` keeps
//! an 8:1 ratio of random reads to writes this way, its `butterfly.fio`
//! one of forward and backward reads.
//!
//! The flows live in a table by id, as fio's flow list does: the first
//! thread of an id makes its flow, each thread adds its weight, and takes
//! its weight and its I/Os back out when it ends, so the others go on;
//! under fio's `exitall`, where the others are about to stop, they stay
//! counted, so the others do not run on unheld for the moment that takes.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// The I/Os issued by, and the weights of, the threads of one flow id.
#[derive(Debug)]
pub struct Flow {
    /// fio starts it at 1, so the first thread's ratio is defined.
    issued: AtomicU64,
    weight: AtomicU64,
    /// The weights of every thread were counted in before any started
    /// (`announce`): a thread joining does not add its own again.
    announced: bool,
}

/// Flows whose weights a group of jobs counted in before its threads
/// started; held until they have all joined or ended.
#[derive(Debug)]
pub struct Announced {
    _held: Vec<Arc<Flow>>,
}

/// Counts in, before any thread of jobs running together starts, the
/// weights each flow id will have (`(flow_id, weight of all its threads)`):
/// fio sets its jobs' flows up before they issue, and without this the
/// first job to start issues alone, unheld, until the next one joins (a
/// skew of milliseconds is millions of I/Os on the null engine).
pub fn announce(weights: impl IntoIterator<Item = (u64, u64)>) -> Announced {
    let mut totals: Vec<(u64, u64)> = Vec::new();
    for (id, w) in weights {
        match totals.iter_mut().find(|(i, _)| *i == id) {
            Some((_, t)) => *t += w,
            None => totals.push((id, w)),
        }
    }
    let mut table = FLOWS.lock().unwrap_or_else(|e| e.into_inner());
    let table = table.get_or_insert_with(HashMap::new);
    table.retain(|_, f| f.strong_count() > 0);
    Announced {
        _held: totals
            .into_iter()
            .map(|(id, total)| {
                let f = Arc::new(Flow {
                    issued: AtomicU64::new(1),
                    weight: AtomicU64::new(total),
                    announced: true,
                });
                table.insert(id, Arc::downgrade(&f));
                f
            })
            .collect(),
    }
}

static FLOWS: Mutex<Option<HashMap<u64, Weak<Flow>>>> = Mutex::new(None);

/// One thread's place in a flow.
#[derive(Debug)]
pub struct FlowSeat {
    flow: Arc<Flow>,
    weight: u64,
    issued: u64,
    /// fio's exitall: the first job to end stops the others, so its share
    /// stays counted until they stop instead of setting them free.
    stays_counted: bool,
}

impl FlowSeat {
    /// Joins flow `id` with `weight` (fio's `flow`, more than 0); with
    /// `exit_all`, what this thread issued and its weight stay counted once
    /// it ends (the others are about to stop).
    pub fn join(id: u64, weight: u64, exit_all: bool) -> FlowSeat {
        let flow = {
            let mut table = FLOWS.lock().unwrap_or_else(|e| e.into_inner());
            let table = table.get_or_insert_with(HashMap::new);
            table.retain(|_, f| f.strong_count() > 0);
            match table.get(&id).and_then(Weak::upgrade) {
                Some(f) => f,
                None => {
                    let f = Arc::new(Flow {
                        issued: AtomicU64::new(1),
                        weight: AtomicU64::new(0),
                        announced: false,
                    });
                    table.insert(id, Arc::downgrade(&f));
                    f
                }
            }
        };
        if !flow.announced {
            flow.weight.fetch_add(weight, Ordering::Relaxed);
        }
        FlowSeat {
            flow,
            weight,
            issued: 0,
            stays_counted: exit_all,
        }
    }

    /// Whether this thread may issue an I/O now: fio's
    /// `flow_threshold_exceeded`, its share of the flow's I/Os against its
    /// share of the flow's weight.
    #[inline]
    pub fn may_issue(&self) -> bool {
        let issued = self.flow.issued.load(Ordering::Relaxed).max(1) as f64;
        let weight = self.flow.weight.load(Ordering::Relaxed).max(1) as f64;
        self.issued as f64 / issued <= self.weight as f64 / weight
    }

    /// Counts an I/O this thread issued.
    #[inline]
    pub fn issued(&mut self) {
        self.flow.issued.fetch_add(1, Ordering::Relaxed);
        self.issued += 1;
    }
}

impl Drop for FlowSeat {
    fn drop(&mut self) {
        if self.stays_counted {
            return;
        }
        self.flow.issued.fetch_sub(self.issued, Ordering::Relaxed);
        self.flow.weight.fetch_sub(self.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// exitall: a thread that ended stays counted, so the other is still
    /// held to its share; without, the other goes on alone.
    #[test]
    fn under_exitall_an_ended_thread_still_holds_the_others() {
        for (exit_all, held) in [(true, true), (false, false)] {
            let id = 9_003 + exit_all as u64;
            let mut light = FlowSeat::join(id, 1, exit_all);
            let mut heavy = FlowSeat::join(id, 8, exit_all);
            for _ in 0..8 {
                heavy.issued();
            }
            light.issued();
            drop(heavy);
            let ran_on = (0..10).all(|_| {
                let ok = light.may_issue();
                light.issued();
                ok
            });
            assert_eq!(ran_on, !held, "exit_all {exit_all}");
        }
    }

    /// Weights counted in before the threads start: the light thread,
    /// first to start, is held to its share before the heavy one joins.
    #[test]
    fn an_announced_flow_holds_the_first_thread_to_its_share() {
        let announced = announce([(9_002, 1), (9_002, 8)]);
        let mut light = FlowSeat::join(9_002, 1, false);
        let mut issued = 0;
        while light.may_issue() && issued < 100 {
            light.issued();
            issued += 1;
        }
        assert_eq!(issued, 1, "the light thread ran ahead alone");
        let mut heavy = FlowSeat::join(9_002, 8, false);
        drop(announced);
        for _ in 0..8 {
            assert!(heavy.may_issue());
            heavy.issued();
        }
        assert!(light.may_issue());
    }

    /// Two threads of weights 8 and 1 taking turns as fast as they may:
    /// their I/Os come out 8 to 1.
    #[test]
    fn threads_issue_in_the_ratio_of_their_weights() {
        let mut fast = FlowSeat::join(9_001, 8, false);
        let mut slow = FlowSeat::join(9_001, 1, false);
        let (mut a, mut b) = (0u64, 0u64);
        for _ in 0..9_000 {
            for (seat, n) in [(&mut fast, &mut a), (&mut slow, &mut b)] {
                if seat.may_issue() {
                    seat.issued();
                    *n += 1;
                }
            }
        }
        let ratio = a as f64 / b as f64;
        assert!((ratio - 8.0).abs() < 0.1, "{a} to {b}");
        // When one leaves, the other goes on alone.
        drop(fast);
        assert!((0..10).all(|_| {
            let ok = slow.may_issue();
            slow.issued();
            ok
        }));
    }
}
