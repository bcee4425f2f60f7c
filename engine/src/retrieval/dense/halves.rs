//! IEEE halves widened to f32 inside the dense scan, exactly, in a form the compiler vectorises.
//!
//! A chunking's f16 vectors are kept as their halves natively (41 MB for the demo's structural
//! chunking, not 82), and the scan widens each row as it reads it: the scan is bound by the bytes
//! it reads. `half`'s slice conversion uses the processor's F16C instruction, but through a call
//! per eight numbers that the scan's loop cannot inline, and the bundle's own widening by table
//! (`corpus::bundle::vectors`, which the worker uses when it opens the file) is a lookup per
//! number, which does not vectorise either; this is the usual shift-and-scale widening instead,
//! which compiles to plain vector integer and float steps.
//!
//! For a half with exponent `e` and mantissa `m`, its bits moved up by 13 are the f32 with
//! exponent `e` and the same mantissa: `2^(e-127)(1 + m/1024)`, or for `e = 0` the f32 subnormal
//! `m 2^-136`. Multiplying by `2^112` gives the half's own value, `2^(e-15)(1 + m/1024)` or
//! `m 2^-24`, exactly (a power of two, and every result is a normal f32). A half with every
//! exponent bit set (an infinity or NaN) keeps every f32 exponent bit set instead. The test below
//! holds every one of the 65,536 halves to `half`'s conversion.

/// `2^112`, the step between a half's exponent bias (15) and an f32's (127).
const REBIAS: f32 = f32::from_bits((112 + 127) << 23);
/// A half's bits for its least infinity, moved up by 13: every magnitude at least this is an
/// infinity or a NaN.
const INFINITE: u32 = 0x7c00 << 13;

/// One half's f32 value, exactly (see the module's note).
#[inline(always)]
pub fn widen(half: u16) -> f32 {
    let half = u32::from(half);
    let sign = (half & 0x8000) << 16;
    let moved = (half & 0x7fff) << 13;
    let magnitude = if moved >= INFINITE {
        moved | 0x7f80_0000
    } else {
        (f32::from_bits(moved) * REBIAS).to_bits()
    };
    f32::from_bits(magnitude | sign)
}

/// Each of `halves` widened into `out`, in order (the shorter decides how many).
#[inline(always)]
pub fn widen_into(halves: &[u16], out: &mut [f32]) {
    for (value, &half) in out.iter_mut().zip(halves) {
        *value = widen(half);
    }
}

/// Work to compile for the widest vectors the processor has ([`at_widest`]). `run` must be
/// `#[inline(always)]`, with everything it calls, or it is compiled once for the baseline
/// processor and only called from the wide copies (as a closure's body was: SSE2 only).
pub trait Work {
    /// What the work gives back.
    type Output;
    /// Does it.
    fn run(self) -> Self::Output;
}

/// `work` as pulp's dispatcher takes it.
#[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
struct Dispatched<W>(W);

#[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
impl<W: Work> pulp::WithSimd for Dispatched<W> {
    type Output = W::Output;

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) -> W::Output {
        self.0.run()
    }
}

/// Runs `work` compiled for the widest vectors the processor has (AVX-512, AVX2), where the
/// embedder's kernels' dispatcher is built in; as it is otherwise (wasm32, or without the
/// `dense` feature). Each number's arithmetic is the same at any width, so the results are too.
pub fn at_widest<W: Work>(work: W) -> W::Output {
    #[cfg(all(feature = "dense", not(target_arch = "wasm32")))]
    {
        pulp::Arch::new().dispatch(Dispatched(work))
    }
    #[cfg(not(all(feature = "dense", not(target_arch = "wasm32"))))]
    {
        work.run()
    }
}

#[cfg(test)]
mod tests {
    use half::f16;

    /// Every one of the 65,536 halves widens to `half`'s own f32: bit for bit where it is
    /// finite, and an infinity of the same sign or a NaN where it is not.
    #[test]
    fn every_half_widens_as_half_does() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let mut widened = vec![0f32; all.len()];
        super::widen_into(&all, &mut widened);
        for (&bits, value) in all.iter().zip(&widened) {
            let expected = f16::from_bits(bits).to_f32();
            if expected.is_nan() {
                assert!(value.is_nan(), "{bits:#06x}: {value}");
            } else {
                assert_eq!(value.to_bits(), expected.to_bits(), "{bits:#06x}");
            }
        }
    }
}
