//! What to do next: offsets (sequential or random with a distribution),
//! block sizes from a split, read or write; verify headers and the verify
//! journal. Buffer contents are the job's (`jobs::fill`), so `targets` can
//! pre-fill without importing this. Nothing here allocates per I/O.

pub mod generator;
pub mod journal;
pub mod verify;

pub use generator::Generator;
