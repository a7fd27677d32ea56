//! An allocation in use and one spare of another size. A stack that turns the image
//! (transpose) alternates its buffers between W×H and H×W from frame to frame; keeping the
//! other shape spares the drivers an allocation and a free each time (and their host-side
//! bookkeeping, which otherwise comes and goes with every change). Under memory pressure
//! the spare goes first.

/// Width and height in pixels.
pub type Size = (u32, u32);

/// The item in use and at most one spare, each with its key: its size, or whatever else
/// tells items apart (size and pixel format).
pub struct WithSpare<T, K = Size> {
    current: Option<(K, T)>,
    spare: Option<(K, T)>,
}

impl<T, K> Default for WithSpare<T, K> {
    fn default() -> Self {
        Self {
            current: None,
            spare: None,
        }
    }
}

impl<T, K: PartialEq> WithSpare<T, K> {
    /// The item in use.
    pub fn current(&self) -> Option<&T> {
        self.current.as_ref().map(|(_, t)| t)
    }

    pub fn current_mut(&mut self) -> Option<&mut T> {
        self.current.as_mut().map(|(_, t)| t)
    }

    /// Makes an item of `size` the one in use: the current one if it has that size, else
    /// the spare (the current one becomes the spare), else a new one from `make`. Before
    /// making one the old spare is handed to `discard` (freed before the allocation), and
    /// the current one becomes the spare once the new one exists; when `make` fails, the
    /// current one stays.
    pub fn select<E>(
        &mut self,
        size: K,
        make: impl FnOnce() -> Result<T, E>,
        discard: impl FnOnce(T),
    ) -> Result<(), E> {
        let sized = |slot: &Option<(K, T)>| slot.as_ref().is_some_and(|(s, _)| *s == size);
        if sized(&self.current) {
            return Ok(());
        }
        if sized(&self.spare) {
            std::mem::swap(&mut self.current, &mut self.spare);
            return Ok(());
        }
        if let Some((_, old)) = self.spare.take() {
            discard(old);
        }
        let made = make()?;
        self.spare = self.current.replace((size, made));
        Ok(())
    }

    /// Takes the spare out (to free it); true when there was one.
    pub fn release_spare(&mut self, discard: impl FnOnce(T)) -> bool {
        self.spare.take().map(|(_, t)| discard(t)).is_some()
    }

    /// Takes both items out (to free them).
    pub fn release_all(&mut self, mut discard: impl FnMut(T)) {
        for (_, t) in [self.current.take(), self.spare.take()]
            .into_iter()
            .flatten()
        {
            discard(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items are numbered in the order `make` produced them.
    fn select(pool: &mut WithSpare<u32>, size: Size, made: &mut u32, freed: &mut Vec<u32>) -> u32 {
        let make = || {
            *made += 1;
            Ok::<_, ()>(*made)
        };
        pool.select(size, make, |t| freed.push(t))
            .expect("make succeeds");
        *pool.current().expect("current")
    }

    #[test]
    fn turning_back_and_forth_allocates_twice() {
        let (mut pool, mut made, mut freed) = (WithSpare::default(), 0, Vec::new());
        for _ in 0..10 {
            select(&mut pool, (4, 3), &mut made, &mut freed);
            select(&mut pool, (3, 4), &mut made, &mut freed);
        }
        assert_eq!((made, freed.len()), (2, 0));
        assert_eq!(select(&mut pool, (4, 3), &mut made, &mut freed), 1);
    }

    #[test]
    fn a_third_size_frees_the_spare_first() {
        let (mut pool, mut made, mut freed) = (WithSpare::default(), 0, Vec::new());
        select(&mut pool, (1, 1), &mut made, &mut freed);
        select(&mut pool, (2, 2), &mut made, &mut freed);
        assert_eq!(select(&mut pool, (3, 3), &mut made, &mut freed), 3);
        assert_eq!(freed, vec![1]);
        // The spare is now (2, 2).
        assert_eq!(select(&mut pool, (2, 2), &mut made, &mut freed), 2);
    }

    #[test]
    fn a_failed_make_keeps_the_current_item() {
        let mut pool = WithSpare::default();
        pool.select((1, 1), || Ok::<_, ()>(7), |_| {})
            .expect("made");
        assert!(pool.select((2, 2), || Err(()), |_| {}).is_err());
        assert_eq!(pool.current(), Some(&7));
        let mut freed = Vec::new();
        assert!(!pool.release_spare(|t| freed.push(t)));
        pool.release_all(|t| freed.push(t));
        assert_eq!((freed, pool.current()), (vec![7], None));
    }
}
