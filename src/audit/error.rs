//! Why an audit stops: the audit's own errors, which the application's error enum takes in.

/// Why an audit could not finish.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// Nothing could be audited (no readable input, an input argument that cannot be listed),
    /// or the output failed while the audit ran.
    #[error("{0}")]
    Fatal(String),
    /// A signal asked the run to stop.
    #[error("interrupted: no report was written")]
    Interrupted,
}
