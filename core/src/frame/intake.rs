//! What the receive buffers of every input framing share: bytes come in through `spare` and
//! `commit`, and `push` copies a slice in through them.

/// A receive buffer that is read into through a spare slice and a commit.
pub(crate) trait Intake {
    /// Free space to read into (may be a one-byte slot, or empty when complete input must be taken
    /// first).
    fn spare(&mut self) -> &mut [u8];
    /// Marks the first `n` bytes of the last `spare` as received.
    fn commit(&mut self, n: usize);
}

/// Copies as much of `data` as `target` takes and returns how many bytes that was: less than
/// `data.len()` only when `target` offers no room until complete input is taken out of it.
pub(crate) fn push(target: &mut impl Intake, data: &[u8]) -> usize {
    let mut taken = 0;
    while let Some(rest) = data.get(taken..)
        && !rest.is_empty()
    {
        let spare = target.spare();
        let n = spare.len().min(rest.len());
        let (Some(destination), Some(source)) = (spare.get_mut(..n), rest.get(..n)) else {
            break;
        };
        if n == 0 {
            break; // full of complete input: the caller must take it first
        }
        destination.copy_from_slice(source);
        target.commit(n);
        taken += n;
    }
    taken
}
