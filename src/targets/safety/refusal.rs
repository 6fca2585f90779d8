//! Why kura refuses to write a device or file, as the user reads it.

use std::io;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum WriteRefusal {
    #[error(
        "{device} is mounted on {mount_point}{via}; kura never writes to a mounted device, \
         not even with --allow-destroy: unmount it first"
    )]
    Mounted {
        device: String,
        mount_point: String,
        via: String,
    },
    #[error(
        "{device} is in use as swap{via}; kura never writes to active swap, \
         not even with --allow-destroy: run `swapoff` on it first"
    )]
    Swap { device: String, via: String },
    #[error(
        "{device} is held by {holders} (part of a device-mapper, RAID or LVM stack); \
         kura never writes to it, not even with --allow-destroy: take it out of the stack first"
    )]
    Held { device: String, holders: String },
    #[error(
        "{device} is busy{via}: the kernel refused an exclusive open (it is mounted, part of a stack, \
         or opened exclusively by another program); kura never writes to it, not even with \
         --allow-destroy: release it first"
    )]
    Busy { device: String, via: String },
    #[error(
        "{device} carries {what}; kura will not write to it unless you pass \
         --allow-destroy {device} (everything on it will be lost){named}"
    )]
    Signature {
        device: String,
        what: String,
        named: String,
    },
    #[error(
        "{device} holds data kura did not write (a byte that is not zero at offset {offset}; kura read \
         {sampled}) and no signature says what it is; kura will not write to it unless you pass \
         --allow-destroy {device} (everything on it will be lost){named}"
    )]
    HoldsData {
        device: String,
        offset: u64,
        sampled: String,
        named: String,
    },
    #[error("{file} backs the loop device {device}, which kura may not write: {why}")]
    BacksLoopInUse {
        file: String,
        device: String,
        why: String,
    },
    #[error(
        "{file} backs the loop device {device}; kura writes to it only when --allow-destroy names {file} \
         (whatever uses {device} loses its data)"
    )]
    BacksLoop { file: String, device: String },
    #[error(
        "cannot check {device} before writing to it: {source}; kura will not write to a device or file it cannot check"
    )]
    Unchecked {
        device: String,
        #[source]
        source: io::Error,
    },
}
