//! What to do next: offsets (sequential or random with a distribution),
//! block sizes from a split, read or write, and buffer contents. Nothing
//! here allocates per I/O.

pub mod fill;
pub mod generator;
pub mod journal;
pub mod verify;

pub use generator::Generator;
