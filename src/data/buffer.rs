//! Feature buffers: the values of a table, held in a `Vec` the table owns or
//! in memory another owner keeps alive, read in place without a copy (the
//! Python package lends a NumPy array this way for the length of a fit).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A read-only buffer of `f64` values, cheap to clone (clones share it).
#[derive(Clone)]
pub struct Values {
    ptr: *const f64,
    len: usize,
    /// Keeps the memory behind `ptr` alive.
    _owner: Arc<dyn Any + Send + Sync>,
}

// SAFETY: `Values` only hands out shared `&[f64]` borrows of memory that
// `_owner` (itself `Send + Sync`) keeps alive and that nobody writes while
// it lives (the contract of `Values::borrowed`; a `Vec` moved into the
// owner is never written again).
unsafe impl Send for Values {}
// SAFETY: as above: shared reads only.
unsafe impl Sync for Values {}

impl Values {
    /// The values of a vector, which the buffer takes over.
    pub fn from_vec(v: Vec<f64>) -> Values {
        let owner = Arc::new(v);
        Values {
            ptr: owner.as_ptr(),
            len: owner.len(),
            _owner: owner,
        }
    }

    /// `len` values at `ptr`, kept alive by `owner`.
    ///
    /// # Safety
    ///
    /// `ptr` must point to `len` initialised, properly aligned `f64` values
    /// (or be dangling with `len == 0`) that stay valid, and are not
    /// written, for as long as `owner` lives.
    pub unsafe fn borrowed(
        ptr: *const f64,
        len: usize,
        owner: Arc<dyn Any + Send + Sync>,
    ) -> Values {
        Values {
            ptr,
            len,
            _owner: owner,
        }
    }
}

impl std::ops::Deref for Values {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the constructors' contract: `len` valid values at `ptr`,
        // alive and unwritten while `_owner`, held by `self`, lives.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl fmt::Debug for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Values({} values)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_and_borrowed_values_read_the_same() {
        let v = Values::from_vec(vec![1.0, 2.0, 3.0]);
        assert_eq!(&v[..], &[1.0, 2.0, 3.0]);
        let owner: Arc<Vec<f64>> = Arc::new(vec![4.0, 5.0]);
        // SAFETY: two values of `owner`, which the buffer keeps alive and
        // nobody writes.
        let b = unsafe { Values::borrowed(owner.as_ptr(), 2, owner.clone()) };
        drop(owner);
        let c = b.clone();
        drop(b);
        assert_eq!(&c[..], &[4.0, 5.0]);
        assert!(Values::from_vec(Vec::new()).is_empty());
    }
}
