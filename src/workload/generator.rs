//! The I/O generator: offset, length and direction of the next I/O. Random
//! offsets follow fio's algorithms (zipf by Gray et al., pareto by power
//! law) and are scattered over the span by a bijection, so the hot blocks
//! are not all at the start of the device, as fio's hashing does.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::jobs::{Distribution, Job, Rw};

/// A prime above any block count, so `rank * SCATTER_PRIME mod n` is a bijection.
const SCATTER_PRIME: u128 = (1 << 61) - 1;
/// fio caps the zeta sum at this many terms; so do we.
const ZIPF_MAX_TERMS: u64 = 10_000_000;

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextIo {
    pub offset: u64,
    pub len: u32,
    pub write: bool,
    /// A trim (BLKDISCARD) of the block; `write` is then false.
    pub trim: bool,
}

/// fio's trim patterns: every I/O a trim, or each trim followed by a write
/// of the same block (fio 3.33 io_u.c: a trimwrite's write takes the last
/// trim's offset and length).
#[derive(Debug, Clone, Copy)]
enum Trims {
    None,
    All,
    /// The block just trimmed, to be written next.
    ThenWrite(Option<(u64, u32)>),
}

#[derive(Debug, Clone)]
enum Pattern {
    Sequential {
        cursor: u64,
    },
    Uniform,
    Zipf(Zipf),
    Pareto {
        power: f64,
    },
    Hotspot {
        io_fraction: f64,
        hot_blocks: u64,
    },
    /// fio's zoned distributions: zone i takes the I/Os whose draw falls
    /// below `cumulative[i]` (shares 0..1, rising), uniformly over
    /// `len[i]` blocks from `start[i]`.
    Zones {
        cumulative: Vec<f64>,
        start: Vec<u64>,
        len: Vec<u64>,
    },
}

/// Zones laid end to end from the span's start, each `blocks[i]` long,
/// cut at the span's end; a zone left empty by the cut gets none of the I/Os.
fn zones(io_pct: &[f64], blocks: &[u64], span_blocks: u64) -> Pattern {
    let (mut cumulative, mut start, mut len) = (Vec::new(), Vec::new(), Vec::new());
    let (mut at, mut sum) = (0u64, 0.0);
    for (io, n) in io_pct.iter().zip(blocks) {
        let n = (*n).min(span_blocks.saturating_sub(at));
        if n > 0 {
            sum += io;
            cumulative.push(sum);
            start.push(at);
            len.push(n);
        }
        at += n;
    }
    if cumulative.is_empty() {
        return Pattern::Uniform;
    }
    // The zones that fit take all the I/Os, in their proportions.
    for c in &mut cumulative {
        *c /= sum.max(f64::MIN_POSITIVE);
    }
    Pattern::Zones {
        cumulative,
        start,
        len,
    }
}

#[derive(Debug, Clone)]
struct Zipf {
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    n: f64,
}

impl Zipf {
    fn new(theta: f64, n: u64) -> Zipf {
        let terms = n.min(ZIPF_MAX_TERMS);
        let zetan: f64 = (1..=terms).map(|i| (i as f64).powf(-theta)).sum();
        let zeta2 = 1.0 + 2f64.powf(-theta);
        let nf = n as f64;
        Zipf {
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: (1.0 - (2.0 / nf).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
            n: nf,
        }
    }

    /// Rank from 0 (the hottest).
    fn rank(&self, u: f64) -> u64 {
        let z = u * self.zetan;
        let v = if z < 1.0 {
            1.0
        } else if z < 1.0 + 0.5f64.powf(self.theta) {
            2.0
        } else {
            1.0 + self.n * (self.eta * u - self.eta + 1.0).powf(self.alpha)
        };
        (v.max(1.0) as u64 - 1).min(self.n as u64 - 1)
    }
}

/// fio's strided zones, in bytes from the job's span start.
#[derive(Debug, Clone, Copy)]
struct Zones {
    /// Bytes moved in a zone before the next.
    size: u64,
    /// From one zone's start to the next's: range + skip.
    step: u64,
    range: u64,
    /// The current zone's start, and the bytes moved in it.
    start: u64,
    done: u64,
    /// The job's span: start and length.
    full: (u64, u64),
}

/// Generates the I/Os of one worker thread.
#[derive(Debug, Clone)]
pub struct Generator {
    rng: SmallRng,
    pattern: Pattern,
    span_start: u64,
    span_bytes: u64,
    /// Offsets are multiples of this (the smallest block size of the split).
    align: u64,
    /// Cumulative weights of the block-size split, and the sizes.
    bs_cumulative: Vec<u32>,
    bs_bytes: Vec<u32>,
    /// Per size of the split, the blocks at which an I/O of it still fits
    /// inside the span: worked out once, as a division per I/O was a fifth
    /// of the null engine's time in `draw`.
    bs_slots: Vec<u64>,
    /// Writes' own split (`bs_write`); empty when writes use reads'.
    wbs_cumulative: Vec<u32>,
    wbs_bytes: Vec<u32>,
    wbs_slots: Vec<u64>,
    read_pct: u8,
    /// Share of random I/Os that seek; the rest continue at `next_seq`.
    random_pct: u8,
    next_seq: u64,
    /// Bytes a sequential pattern skips after each I/O.
    gap: u64,
    /// Bytes before the end of each I/O the next starts at (fio's `:-N`).
    back: u64,
    /// fio's strided zones: `span_start`/`span_bytes` are the current zone's.
    zones: Option<Zones>,
    trims: Trims,
}

/// For each block size, how many aligned offsets it fits at in `span_bytes`
/// (at least one): worked out when the span is set, not per I/O.
fn fitting_blocks(bytes: &[u32], span_bytes: u64, align: u64) -> Vec<u64> {
    bytes
        .iter()
        .map(|b| (span_bytes.saturating_sub(*b as u64) / align + 1).max(1))
        .collect()
}

impl Generator {
    /// `seed` differs per thread so threads do not repeat each other.
    pub fn new(job: &Job, span_start: u64, span_bytes: u64, seed: u64, thread_index: u32) -> Generator {
        let align = job
            .align
            .unwrap_or_else(|| job.all_bs().map(|b| b.bytes).min().unwrap_or(4096))
            .max(1);
        let blocks = (span_bytes / align).max(1);
        let pattern = if !job.rw.is_random() {
            // Threads of a sequential job start spread over the span, like fio's offset_increment.
            // With offset_increment each thread has a span of its own (runner/thread_span.rs).
            let stride = if job.file_per_thread || job.offset_increment_bytes > 0 || job.zones().is_some() {
                0
            } else {
                (blocks / job.threads.max(1) as u64) * align
            };
            Pattern::Sequential {
                cursor: stride * thread_index as u64,
            }
        } else {
            match job.distribution {
                Distribution::Uniform => Pattern::Uniform,
                Distribution::Zipf { theta } => Pattern::Zipf(Zipf::new(theta, blocks)),
                Distribution::Pareto { h } => Pattern::Pareto {
                    power: h.ln() / (1.0 - h).ln(),
                },
                Distribution::Hotspot { io_pct, space_pct } => Pattern::Hotspot {
                    io_fraction: io_pct / 100.0,
                    hot_blocks: ((blocks as f64 * space_pct / 100.0) as u64).clamp(1, blocks),
                },
                Distribution::Zoned { ref zones } => {
                    let io: Vec<f64> = zones.iter().map(|z| z.io_pct).collect();
                    let lens: Vec<u64> = zones
                        .iter()
                        .map(|z| ((blocks as f64 * z.space_pct / 100.0).round() as u64).max(1))
                        .collect();
                    self::zones(&io, &lens, blocks)
                }
                Distribution::ZonedAbs { ref zones } => {
                    let io: Vec<f64> = zones.iter().map(|z| z.io_pct).collect();
                    let lens: Vec<u64> = zones.iter().map(|z| (z.size_bytes / align).max(1)).collect();
                    self::zones(&io, &lens, blocks)
                }
            }
        };
        let slots = |bytes: &[u32]| fitting_blocks(bytes, span_bytes, align);
        let bs_bytes: Vec<u32> = job.bs.iter().map(|b| b.bytes as u32).collect();
        let wbs_bytes: Vec<u32> = job.bs_write.iter().flatten().map(|b| b.bytes as u32).collect();
        let mut total = 0;
        let bs_cumulative = job
            .bs
            .iter()
            .map(|b| {
                total += b.weight;
                total
            })
            .collect();
        Generator {
            rng: SmallRng::seed_from_u64(seed ^ (thread_index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            pattern,
            span_start,
            span_bytes,
            align,
            bs_cumulative,
            bs_slots: slots(&bs_bytes),
            bs_bytes,
            wbs_cumulative: job
                .bs_write
                .iter()
                .flatten()
                .scan(0u32, |t, b| {
                    *t += b.weight;
                    Some(*t)
                })
                .collect(),
            wbs_slots: slots(&wbs_bytes),
            wbs_bytes,
            // Trims draw their blocks as reads do, from `bs`.
            read_pct: if job.does_trims() {
                100
            } else {
                job.effective_read_pct()
            },
            random_pct: job.random_pct.min(100),
            next_seq: 0,
            gap: job.gap_bytes,
            back: job.step_back_bytes,
            zones: job.zones().map(|(size, range, skip)| Zones {
                size,
                step: range + skip,
                range,
                start: 0,
                done: 0,
                full: (span_start, span_bytes),
            }),
            trims: match job.rw {
                Rw::Trim | Rw::RandTrim => Trims::All,
                Rw::TrimWrite | Rw::RandTrimWrite => Trims::ThenWrite(None),
                _ => Trims::None,
            },
        }
    }

    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift: no division, negligible bias for n << 2^64.
        ((self.rng.next_u64() as u128 * n as u128) >> 64) as u64
    }

    #[inline]
    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    #[inline]
    fn scatter(rank: u64, n: u64) -> u64 {
        ((rank as u128 * SCATTER_PRIME) % n as u128) as u64
    }

    /// A block size from the split (reads' and, without `bs_write`, writes'),
    /// with the blocks at which it fits.
    #[inline(always)]
    fn pick_len(&mut self, write: bool) -> (u32, u64) {
        let own = write && !self.wbs_bytes.is_empty();
        let (cumulative, bytes, slots) = if own {
            (&self.wbs_cumulative, &self.wbs_bytes, &self.wbs_slots)
        } else {
            (&self.bs_cumulative, &self.bs_bytes, &self.bs_slots)
        };
        if bytes.len() == 1 {
            return (bytes[0], slots[0]);
        }
        let total = *cumulative.last().unwrap_or(&1);
        let pick = ((self.rng.next_u64() as u128 * total as u128) >> 64) as u32;
        let (cumulative, bytes, slots) = if own {
            (&self.wbs_cumulative, &self.wbs_bytes, &self.wbs_slots)
        } else {
            (&self.bs_cumulative, &self.bs_bytes, &self.bs_slots)
        };
        let i = cumulative.iter().position(|c| pick < *c).unwrap_or(0);
        (bytes[i], slots[i])
    }

    #[inline]
    fn pick_write(&mut self) -> bool {
        match self.read_pct {
            100 => false,
            0 => true,
            pct => self.below(100) >= pct as u64,
        }
    }

    #[inline]
    pub fn next_io(&mut self) -> NextIo {
        match self.trims {
            Trims::None => self.draw(),
            Trims::All => NextIo {
                trim: true,
                ..self.draw()
            },
            Trims::ThenWrite(Some((offset, len))) => {
                self.trims = Trims::ThenWrite(None);
                NextIo {
                    offset,
                    len,
                    write: true,
                    trim: false,
                }
            }
            Trims::ThenWrite(None) => {
                let io = self.draw();
                self.trims = Trims::ThenWrite(Some((io.offset, io.len)));
                NextIo { trim: true, ..io }
            }
        }
    }

    /// fio's io_u.c `setup_strided_zone_mode`: after `size` bytes in a
    /// zone, the next zone, `range + skip` further; past the end, the first.
    #[inline]
    fn draw(&mut self) -> NextIo {
        let Some(z) = &mut self.zones else {
            return self.draw_in_span();
        };
        if z.done >= z.size {
            z.done = 0;
            z.start += z.step;
            if z.start >= z.full.1 {
                z.start = 0;
            }
            if let Pattern::Sequential { cursor } = &mut self.pattern {
                *cursor = 0;
            }
        }
        self.span_start = z.full.0 + z.start;
        let zone_bytes = z.range.min(z.full.1 - z.start);
        if zone_bytes != self.span_bytes {
            // A zone's own span: the blocks that fit in it, worked out once a zone.
            self.span_bytes = zone_bytes;
            self.bs_slots = fitting_blocks(&self.bs_bytes, zone_bytes, self.align);
            self.wbs_slots = fitting_blocks(&self.wbs_bytes, zone_bytes, self.align);
        }
        let io = self.draw_in_span();
        if let Some(z) = &mut self.zones {
            z.done += u64::from(io.len);
        }
        io
    }

    #[inline]
    fn draw_in_span(&mut self) -> NextIo {
        // The size first, then the direction, as before `bs_write`, so stored
        // seeds repeat; with writes' own sizes the direction decides the size.
        let ((len, slots), write) = if self.wbs_bytes.is_empty() {
            let len = self.pick_len(false);
            (len, self.pick_write())
        } else {
            let write = self.pick_write();
            (self.pick_len(write), write)
        };
        if self.random_pct < 100
            && !matches!(self.pattern, Pattern::Sequential { .. })
            && self.below(100) >= self.random_pct as u64
        {
            let at = if self.next_seq + len as u64 > self.span_bytes {
                0
            } else {
                self.next_seq
            };
            self.next_seq = at + len as u64;
            return NextIo {
                offset: self.span_start + at,
                len,
                write,
                trim: false,
            };
        }
        if matches!(self.pattern, Pattern::Zones { .. }) {
            let (u, r) = (self.unit(), self.rng.next_u64());
            if let Pattern::Zones {
                cumulative,
                start,
                len: lens,
            } = &self.pattern
            {
                let i = cumulative.partition_point(|c| *c <= u).min(cumulative.len() - 1);
                // Lemire's multiply-shift, as `below`.
                let within = ((r as u128 * lens[i] as u128) >> 64) as u64;
                let block = (start[i] + within).min(slots - 1);
                self.next_seq = block * self.align + len as u64;
                return NextIo {
                    offset: self.span_start + block * self.align,
                    len,
                    write,
                    trim: false,
                };
            }
        }
        let block = match &mut self.pattern {
            Pattern::Sequential { cursor } => {
                if *cursor + len as u64 > self.span_bytes {
                    *cursor = 0;
                }
                let at = *cursor;
                let end = at + len as u64;
                // fio's io_u.c get_next_seq_offset: before the start, wrap to the end less the step.
                *cursor = match self.back {
                    0 => end + self.gap,
                    back => end
                        .checked_sub(back)
                        .unwrap_or_else(|| self.span_bytes.saturating_sub(back)),
                };
                return NextIo {
                    offset: self.span_start + at,
                    len,
                    write,
                    trim: false,
                };
            }
            Pattern::Uniform => self.below(slots),
            Pattern::Zipf(z) => {
                let u = (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                Self::scatter(z.rank(u).min(slots - 1), slots)
            }
            Pattern::Pareto { power } => {
                let power = *power;
                let u = self.unit();
                let rank = ((slots - 1) as f64 * (1.0 - u.powf(power))) as u64;
                Self::scatter(rank.min(slots - 1), slots)
            }
            Pattern::Hotspot {
                io_fraction,
                hot_blocks,
            } => {
                let (io_fraction, hot) = (*io_fraction, (*hot_blocks).min(slots));
                if self.unit() < io_fraction || hot == slots {
                    self.below(hot)
                } else {
                    hot + self.below(slots - hot)
                }
            }
            // Handled above: its draws need the generator while the zones are borrowed.
            Pattern::Zones { .. } => unreachable!("zones are drawn before this match"),
        };
        self.next_seq = block * self.align + len as u64;
        NextIo {
            offset: self.span_start + block * self.align,
            len,
            write,
            trim: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(text: &[(&str, &str)]) -> Job {
        let mut j = Job::default();
        for (k, v) in text {
            j.set(k, v).unwrap();
        }
        j
    }

    #[test]
    fn trims_trim_and_trimwrite_writes_each_trimmed_block() {
        let io = |offset, write, trim| NextIo {
            offset,
            len: 4096,
            write,
            trim,
        };
        let mut g = Generator::new(&job(&[("rw", "trim"), ("bs", "4k")]), 0, 8192, 1, 0);
        let got: Vec<_> = (0..3).map(|_| g.next_io()).collect();
        assert_eq!(
            got,
            [io(0, false, true), io(4096, false, true), io(0, false, true)]
        );
        let mut g = Generator::new(&job(&[("rw", "trimwrite"), ("bs", "4k")]), 0, 8192, 1, 0);
        let got: Vec<_> = (0..4).map(|_| g.next_io()).collect();
        let want = [
            io(0, false, true),
            io(0, true, false),
            io(4096, false, true),
            io(4096, true, false),
        ];
        assert_eq!(got, want);
        let mut g = Generator::new(&job(&[("rw", "randtrimwrite"), ("bs", "4k")]), 0, 1 << 20, 1, 0);
        for _ in 0..100 {
            let (t, w) = (g.next_io(), g.next_io());
            assert!(
                t.trim && !t.write && w.write && !w.trim && t.offset == w.offset,
                "{t:?} {w:?}"
            );
        }
    }

    #[test]
    fn offsets_stay_aligned_inside_the_span() {
        for dist in ["uniform", "zipf:1.2", "zipf:0.8", "pareto:0.9", "hotspot:80/20"] {
            let j = job(&[("rw", "randrw"), ("bs", "4k/50:64k/50"), ("distribution", dist)]);
            let mut g = Generator::new(&j, 1 << 20, 10 << 20, 1, 0);
            for _ in 0..50_000 {
                let io = g.next_io();
                assert_eq!(io.offset % 4096, 0, "{dist}");
                assert!(io.offset >= 1 << 20, "{dist}");
                assert!(io.offset + io.len as u64 <= 11 << 20, "{dist} {io:?}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_ios() {
        let j = job(&[
            ("rw", "randrw"),
            ("bs", "4k/50:64k/50"),
            ("distribution", "zipf:1.2"),
        ]);
        let ios = |seed: u64, thread: u32| {
            let mut g = Generator::new(&j, 0, 1 << 30, seed, thread);
            (0..1000).map(|_| g.next_io()).collect::<Vec<_>>()
        };
        assert_eq!(ios(42, 0), ios(42, 0));
        assert_ne!(ios(42, 0), ios(43, 0));
        assert_ne!(
            ios(42, 0),
            ios(42, 1),
            "threads of one job do not repeat each other"
        );
    }

    #[test]
    fn sequential_covers_the_span_in_order() {
        let j = job(&[("rw", "read"), ("bs", "4k")]);
        let mut g = Generator::new(&j, 0, 64 << 10, 1, 0);
        let offsets: Vec<u64> = (0..32).map(|_| g.next_io().offset).collect();
        let expected: Vec<u64> = (0..16).chain(0..16).map(|i| i * 4096).collect();
        assert_eq!(offsets, expected);
    }

    /// fio's disk-zone-profile.fio, smaller: 8k of each 16k zone, 32k
    /// skipped. fio 3.33's write_iolog of the same job on a 100k file lists
    /// 0, 4k, 48k, 52k, 96k: one pass (`Job::pass_bytes`) is those 20k.
    #[test]
    fn strided_zones_move_zone_size_then_skip() {
        let j = job(&[
            ("rw", "read"),
            ("bs", "4k"),
            ("zone_size", "8k"),
            ("zone_range", "16k"),
            ("zone_skip", "32k"),
        ]);
        let mut g = Generator::new(&j, 4096, 100 << 10, 1, 0);
        let offsets: Vec<u64> = (0..7).map(|_| (g.next_io().offset - 4096) >> 10).collect();
        // The third zone has 4k left: its I/Os go round in it, then the first zone follows.
        assert_eq!(offsets, [0, 4, 48, 52, 96, 96, 0]);
        assert_eq!(j.pass_bytes(100 << 10), 20 << 10);
        let j = job(&[
            ("rw", "randread"),
            ("bs", "4k"),
            ("zone_size", "16k"),
            ("zone_skip", "48k"),
        ]);
        let mut g = Generator::new(&j, 0, 1 << 20, 1, 0);
        for i in 0..64u64 {
            let at = g.next_io().offset;
            let zone = (i / 4) * (64 << 10) % (1 << 20);
            assert!(
                at >= zone && at + 4096 <= zone + (16 << 10),
                "I/O {i} at {at}, zone {zone}"
            );
        }
    }

    /// fio's backwards-read.fio (`rw=read:-8k`, bs 4k): the first block,
    /// then from the end less 8k down, as fio's get_next_seq_offset does.
    #[test]
    fn a_step_back_walks_the_span_backwards() {
        let j = job(&[("rw", "read"), ("bs", "4k"), ("step_back", "8k"), ("size", "32k")]);
        let mut g = Generator::new(&j, 0, 32 << 10, 1, 0);
        let offsets: Vec<u64> = (0..9).map(|_| g.next_io().offset >> 10).collect();
        assert_eq!(offsets, [0, 24, 20, 16, 12, 8, 4, 0, 24]);
    }

    #[test]
    fn a_gap_leaves_holes_between_sequential_ios() {
        let j = job(&[("rw", "write"), ("bs", "4k"), ("gap", "4k")]);
        let mut g = Generator::new(&j, 0, 64 << 10, 1, 0);
        let offsets: Vec<u64> = (0..10).map(|_| g.next_io().offset).collect();
        let expected: Vec<u64> = (0..8).chain(0..2).map(|i| i * 8192).collect();
        assert_eq!(offsets, expected);
    }

    #[test]
    fn read_pct_holds() {
        let j = job(&[("rw", "randrw"), ("read_pct", "70")]);
        let mut g = Generator::new(&j, 0, 1 << 30, 3, 0);
        let n = 100_000;
        let reads = (0..n).filter(|_| !g.next_io().write).count();
        let share = reads as f64 / n as f64;
        assert!((share - 0.70).abs() < 0.01, "{share}");
    }

    #[test]
    fn block_size_split_holds() {
        let j = job(&[("rw", "randread"), ("bs", "4k/60:64k/40")]);
        let mut g = Generator::new(&j, 0, 1 << 30, 3, 0);
        let n = 100_000;
        let small = (0..n).filter(|_| g.next_io().len == 4096).count();
        assert!((small as f64 / n as f64 - 0.6).abs() < 0.01, "{small}");
    }

    /// Share of I/Os that land on the hottest 10 % of distinct blocks.
    fn top_decile_share(dist: &str) -> f64 {
        let j = job(&[("rw", "randread"), ("distribution", dist)]);
        let blocks = 10_000u64;
        let mut g = Generator::new(&j, 0, blocks * 4096, 9, 0);
        let mut hits = vec![0u32; blocks as usize];
        let n = 200_000;
        for _ in 0..n {
            hits[(g.next_io().offset / 4096) as usize] += 1;
        }
        hits.sort_unstable_by(|a, b| b.cmp(a));
        hits[..(blocks / 10) as usize]
            .iter()
            .map(|h| *h as f64)
            .sum::<f64>()
            / n as f64
    }

    #[test]
    fn distributions_show_their_skew() {
        let uniform = top_decile_share("uniform");
        // Uniform: the busiest tenth gets little more than a tenth (sampling noise only).
        assert!(uniform < 0.16, "uniform {uniform}");
        let zipf = top_decile_share("zipf:1.2");
        assert!(zipf > 0.7, "zipf {zipf}");
        let pareto = top_decile_share("pareto:0.9");
        assert!(pareto > 0.6, "pareto {pareto}");
        let hotspot = top_decile_share("hotspot:90/10");
        assert!((hotspot - 0.9).abs() < 0.02, "hotspot {hotspot}");
    }

    #[test]
    fn random_pct_mixes_seeks_and_sequential_runs() {
        let j = job(&[("rw", "randread"), ("random_pct", "25"), ("align", "8k")]);
        let mut g = Generator::new(&j, 0, 1 << 30, 7, 0);
        let mut prev_end = u64::MAX;
        let n = 100_000;
        let mut sequential = 0;
        for _ in 0..n {
            let io = g.next_io();
            if io.offset == prev_end {
                sequential += 1;
            } else {
                assert_eq!(io.offset % 8192, 0);
            }
            prev_end = io.offset + io.len as u64;
        }
        let share = sequential as f64 / n as f64;
        assert!((share - 0.75).abs() < 0.01, "{share}");
    }

    #[test]
    fn hotspot_goes_to_the_first_part_of_the_span() {
        let j = job(&[("rw", "randread"), ("distribution", "hotspot:80/20")]);
        let mut g = Generator::new(&j, 0, 100 * 4096, 5, 0);
        let n = 100_000;
        let hot = (0..n).filter(|_| g.next_io().offset < 20 * 4096).count();
        assert!((hot as f64 / n as f64 - 0.8).abs() < 0.01, "{hot}");
    }

    #[test]
    fn zoned_sends_each_zone_its_share_spread_over_it() {
        // fio's example: 60 % to the first 10 %, 30 % to the next 20 %, 10 % to the last 70 %.
        for (dist, span_blocks) in [
            ("zoned:60/10:30/20:10/70", 1000u64),
            ("zoned_abs:60/400k:30/800k:10/2800k", 1000),
        ] {
            let j = job(&[("rw", "randread"), ("distribution", dist)]);
            let mut g = Generator::new(&j, 0, span_blocks * 4096, 9, 0);
            let n = 200_000;
            let mut counts = [0u64; 3];
            let mut seen = std::collections::HashSet::new();
            for _ in 0..n {
                let block = g.next_io().offset / 4096;
                seen.insert(block);
                counts[match block {
                    0..100 => 0,
                    100..300 => 1,
                    _ => 2,
                }] += 1;
            }
            for (c, want) in counts.iter().zip([0.6, 0.3, 0.1]) {
                assert!((*c as f64 / n as f64 - want).abs() < 0.01, "{dist}: {counts:?}");
            }
            assert!(
                seen.len() > 990,
                "{dist}: every block of every zone is reached: {}",
                seen.len()
            );
        }
        // Zones past the span's end are cut; the I/Os go to the zones that fit.
        let j = job(&[("rw", "randread"), ("distribution", "zoned_abs:50/100k:50/1g")]);
        let mut g = Generator::new(&j, 0, 50 * 4096, 9, 0);
        assert!((0..1000).all(|_| g.next_io().offset < 50 * 4096));
    }
}
