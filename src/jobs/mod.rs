//! The job model every input is translated into, its units and its readers.
//! Nothing here touches the disk except reading a job file's text.

pub mod block;
pub mod bonnie_params;
pub mod byte_pattern;
pub mod db_params;
pub mod duration_ns;
pub mod fileset;
pub mod fill;
pub mod fio_file;
mod fio_fs;
mod fio_options;
pub mod job;
pub mod jobfile;
pub mod label;
pub mod latency;
pub mod op_kind;
pub mod open_sync;
pub mod options;
// Placeholders are not paths.
pub mod placeholder;
pub mod precondition;
pub mod presets;
pub mod price;
pub mod pts;
pub mod rate_min;
pub mod reading;
pub mod steady_stop;
pub mod suites;
pub mod sweep;
pub mod toml_file;
pub mod tracked;
pub mod units;
pub mod vdbench_file;
pub mod vdbench_fs;
pub mod workload;
// The IO500-like suite.
pub mod io500;
// A job's JSON with the read share it issued.
pub mod issued;

pub use job::{BlockSize, Distribution, EngineKind, Fill, Job, Rw, SpecError, ZoneAbs, ZonePct};
pub use op_kind::OpKind;
pub use options::{Opt, Value};
pub use tracked::Tracked;
pub use workload::Workload;
