//! A packed image's bits: fields written into and read out of 32-bit words, word 0 holding
//! bits 31:0, as Verilator's `VlWide` holds the RTL's packed structs. A file of its own: readers
//! of an image use it without the registers (the co-simulator's field reads, `extract`), and
//! every read and write here must inline to a few word operations.

/// Writes a packed image into 32-bit words, word 0 holding bits 31:0 (Verilator's `VlWide`
/// order), starting at the top bit and moving down.
pub struct BitWriter<'a> {
    words: &'a mut [u32],
    pos: u32,
}

impl<'a> BitWriter<'a> {
    /// `width` is the total width of the image; writing starts at bit `width - 1`.
    #[inline(always)]
    pub fn new(words: &'a mut [u32], width: u32) -> Self {
        words.iter_mut().for_each(|w| *w = 0);
        BitWriter { words, pos: width }
    }

    /// Puts the low `width` bits of the little-endian limbs `v` below the current position.
    #[inline(always)]
    pub fn put(&mut self, v: &[u64], width: u32) {
        let lsb = self.pos - width;
        let mut done = 0;
        // 64-bit chunks through the word-wise path.
        while done < width {
            let take = (width - done).min(64);
            self.pos = lsb + done + take;
            self.put64(v[(done / 64) as usize], take);
            done += take;
        }
        self.pos = lsb;
    }

    /// Fast path for fields of at most 64 bits: the value, moved to its bit offset, covers at
    /// most three consecutive words, which are ORed in without a per-word loop.
    #[inline(always)]
    pub fn put64(&mut self, v: u64, width: u32) {
        self.pos -= width;
        let at = self.pos;
        let v = if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        };
        let x = (v as u128) << (at % 32);
        let w = (at / 32) as usize;
        self.words[w] |= x as u32;
        if let Some(next) = self.words.get_mut(w + 1) {
            *next |= (x >> 32) as u32;
        }
        if let Some(next) = self.words.get_mut(w + 2) {
            *next |= (x >> 64) as u32;
        }
    }
}

/// Reads a packed image written by [`BitWriter`] (or by the RTL).
///
/// Every read is inlined: once [`Reg::unpack_from`](super::Reg::unpack_from) is inlined into
/// [`Reg::unpack`](super::Reg::unpack), each
/// field's position is a constant and its read folds to the one to three word loads it spans.
pub struct BitReader<'a> {
    words: &'a [u32],
    pos: u32,
}

impl<'a> BitReader<'a> {
    /// `width` is the position just above the first field read (the image's width to read a
    /// whole register; a field's top bit + 1 to start at that field).
    #[inline(always)]
    pub fn new(words: &'a [u32], width: u32) -> Self {
        BitReader { words, pos: width }
    }

    /// Takes the next `width` bits (below the current position) as little-endian limbs.
    #[inline(always)]
    pub fn take(&mut self, width: u32) -> [u64; 3] {
        self.pos -= width;
        extract(self.words, self.pos, width)
    }

    /// [`BitReader::take`] of a field of at most 64 bits, as one value.
    #[inline(always)]
    pub fn take64(&mut self, width: u32) -> u64 {
        self.pos -= width;
        extract64(self.words, self.pos, width)
    }

    /// Passes over the next `width` bits without reading them.
    #[inline(always)]
    pub fn skip(&mut self, width: u32) {
        self.pos -= width;
    }
}

/// Bits `lsb + width - 1 .. lsb` of a packed image, as little-endian limbs (width <= 192),
/// zero above `width`: each limb one [`extract64`].
#[inline(always)]
pub fn extract(words: &[u32], lsb: u32, width: u32) -> [u64; 3] {
    let mut out = [0u64; 3];
    for (k, limb) in out.iter_mut().enumerate() {
        let done = 64 * k as u32;
        if done < width {
            *limb = extract64(words, lsb + done, (width - done).min(64));
        }
    }
    out
}

/// Bits `lsb + width - 1 .. lsb` of a packed image, `1 <= width <= 64`: the (at most three)
/// words the field spans, joined and shifted down. Only the words it spans are read.
#[inline(always)]
pub fn extract64(words: &[u32], lsb: u32, width: u32) -> u64 {
    debug_assert!((1..=64).contains(&width));
    let first = (lsb / 32) as usize;
    let last = ((lsb + width - 1) / 32) as usize;
    let mut x = words[first] as u128;
    if last > first {
        x |= (words[first + 1] as u128) << 32;
    }
    if last > first + 1 {
        x |= (words[first + 2] as u128) << 64;
    }
    let v = (x >> (lsb % 32)) as u64;
    if width == 64 {
        v
    } else {
        v & ((1u64 << width) - 1)
    }
}
