//! Byte buffers that are borrowed or, with the `alloc` feature, owned: smoltcp's `ManagedSlice`
//! for `u8`.
//!
//! Every buffer the engine works in (receive, transmit, the legacy input buffer) is a [`Storage`].
//! Firmware lends `&'a mut [u8]` from a static or the stack and pays nothing for the choice: without
//! `alloc` the enum has only the [`Borrowed`](Storage::Borrowed) variant, so it is a slice and every
//! `match` on it compiles away. A host that wants an engine in a spawned task gives it
//! `Owned` boxes instead, so the engine is `'static` (and `Send`) with no leak and
//! no `unsafe`, and takes the boxes back with `Storage::into_box` to reuse them.
//!
//! ```
//! use mcp_sansio::storage::Storage;
//!
//! let mut bytes = [0u8; 4];
//! let mut storage = Storage::from(&mut bytes[..]);
//! storage[0] = b'a';
//! assert_eq!(storage.len(), 4);
//! drop(storage);
//! assert_eq!(bytes[0], b'a');
//! ```

#[cfg(feature = "alloc")]
use alloc::boxed::Box;
use core::fmt;
use core::ops::{Deref, DerefMut};

/// A byte buffer: borrowed from the caller, or (with `alloc`) owned as a `Box<[u8]>`.
///
/// It dereferences to `[u8]`; its length never changes. Build it with `From`: borrowed from
/// `&mut [u8]`, `&mut [u8; N]` or (with `alloc`) `&mut Vec<u8>`; owned from `Box<[u8]>` or
/// `Vec<u8>` (with `alloc`).
pub enum Storage<'a> {
    /// A buffer lent by the caller for `'a`.
    Borrowed(&'a mut [u8]),
    /// A buffer owned by the holder, freed with it or given back by [`Storage::into_box`].
    #[cfg(feature = "alloc")]
    Owned(Box<[u8]>),
}

impl<'a> Storage<'a> {
    /// An empty borrowed buffer (no allocation).
    #[must_use]
    pub const fn empty() -> Self {
        Storage::Borrowed(&mut [])
    }

    /// `true` for an `Owned` buffer (only with `alloc`).
    #[must_use]
    pub fn is_owned(&self) -> bool {
        match self {
            Storage::Borrowed(_) => false,
            #[cfg(feature = "alloc")]
            Storage::Owned(_) => true,
        }
    }

    /// The owned buffer, to reuse it; `None` for a borrowed one (which goes back to its lender when
    /// `'a` ends).
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn into_box(self) -> Option<Box<[u8]>> {
        match self {
            Storage::Borrowed(_) => None,
            Storage::Owned(owned) => Some(owned),
        }
    }

    /// The buffer as an owned box: the owned one itself, or a copy of a borrowed one.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn into_owned(self) -> Box<[u8]> {
        match self {
            Storage::Borrowed(borrowed) => Box::from(&*borrowed),
            Storage::Owned(owned) => owned,
        }
    }
}

impl Deref for Storage<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Storage::Borrowed(borrowed) => borrowed,
            #[cfg(feature = "alloc")]
            Storage::Owned(owned) => owned,
        }
    }
}

impl DerefMut for Storage<'_> {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Storage::Borrowed(borrowed) => borrowed,
            #[cfg(feature = "alloc")]
            Storage::Owned(owned) => owned,
        }
    }
}

impl Default for Storage<'_> {
    /// [`Storage::empty`].
    fn default() -> Self {
        Storage::empty()
    }
}

impl fmt::Debug for Storage<'_> {
    /// The variant and the length, not the bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let variant = if self.is_owned() { "Owned" } else { "Borrowed" };
        f.debug_struct(variant).field("len", &self.len()).finish()
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for Storage<'_> {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "Storage {{ owned: {=bool}, len: {=usize} }}", self.is_owned(), self.len());
    }
}

impl<'a> From<&'a mut [u8]> for Storage<'a> {
    fn from(borrowed: &'a mut [u8]) -> Self {
        Storage::Borrowed(borrowed)
    }
}

impl<'a, const N: usize> From<&'a mut [u8; N]> for Storage<'a> {
    fn from(borrowed: &'a mut [u8; N]) -> Self {
        Storage::Borrowed(borrowed)
    }
}

#[cfg(feature = "alloc")]
impl From<Box<[u8]>> for Storage<'_> {
    fn from(owned: Box<[u8]>) -> Self {
        Storage::Owned(owned)
    }
}

#[cfg(feature = "alloc")]
impl<'a> From<&'a mut alloc::vec::Vec<u8>> for Storage<'a> {
    /// The vector's elements, borrowed.
    fn from(borrowed: &'a mut alloc::vec::Vec<u8>) -> Self {
        Storage::Borrowed(borrowed)
    }
}

#[cfg(feature = "alloc")]
impl From<alloc::vec::Vec<u8>> for Storage<'_> {
    /// Owned storage of the vector's length (its spare capacity, if any, is given back).
    fn from(owned: alloc::vec::Vec<u8>) -> Self {
        Storage::Owned(owned.into_boxed_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(feature = "alloc")]
    use std::{boxed::Box, vec};

    #[test]
    fn borrowed_storage_writes_through_to_the_lender() {
        let mut bytes = [0u8; 3];
        let mut storage = Storage::from(&mut bytes);
        assert!(!storage.is_owned());
        storage.copy_from_slice(b"abc");
        assert_eq!(&*storage, b"abc");
        #[cfg(feature = "alloc")]
        assert_eq!(storage.into_box(), None);
        assert_eq!(&bytes, b"abc");
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn owned_storage_round_trips_through_into_box() {
        let boxed: Box<[u8]> = vec![0u8; 5].into_boxed_slice();
        let address = boxed.as_ptr();
        let mut storage = Storage::from(boxed);
        assert!(storage.is_owned());
        assert_eq!(storage.len(), 5);
        storage[4] = b'z';
        let back = storage.into_box().expect("owned storage gives its box back");
        assert_eq!(back.as_ptr(), address, "the same allocation, not a copy");
        assert_eq!(&back[..], b"\0\0\0\0z");
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn into_owned_copies_only_a_borrowed_buffer() {
        let mut bytes = *b"xy";
        assert_eq!(&*Storage::from(&mut bytes[..]).into_owned(), b"xy");
        let boxed: Box<[u8]> = Box::from(&b"pq"[..]);
        let address = boxed.as_ptr();
        let owned = Storage::from(boxed).into_owned();
        assert_eq!(owned.as_ptr(), address);
    }

    #[test]
    fn without_alloc_storage_is_a_slice() {
        // One variant, no tag: an engine over borrowed buffers is as large as before `Storage`.
        #[cfg(not(feature = "alloc"))]
        assert_eq!(core::mem::size_of::<Storage<'_>>(), core::mem::size_of::<&mut [u8]>());
        #[cfg(feature = "alloc")]
        assert!(core::mem::size_of::<Storage<'_>>() <= 3 * core::mem::size_of::<usize>());
    }

    #[test]
    fn empty_and_debug() {
        let storage = Storage::default();
        assert!(storage.is_empty());
        assert_eq!(std::format!("{storage:?}"), "Borrowed { len: 0 }");
        #[cfg(feature = "alloc")]
        assert_eq!(std::format!("{:?}", Storage::from(vec![1u8, 2])), "Owned { len: 2 }");
    }
}
