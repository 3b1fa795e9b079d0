//! Writing files where every writer reaches it: [`atomic::AtomicFile`], a file that appears
//! under its final name only when complete.

pub mod atomic;

pub use self::atomic::AtomicFile;
