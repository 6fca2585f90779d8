//! Results of other tools, translated into kura runs so that they can be
//! stored, shown and compared like runs kura made. Each reader refuses input
//! it does not recognise rather than storing a guess.

pub mod fio_json;
pub mod kura;
