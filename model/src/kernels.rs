//! Fused CPU kernels for the two element-wise steps of the transformer that
//! burn-flex computes one scalar libm call at a time: the attention softmax
//! (`expf`) and the exact GELU (`erff`, and `expf` in its derivative).
//! Together they were about a sixth of a `tiny` training step on one core
//! (BENCHMARKS.md, "Network on the CPU"). Here each is one pass over a row
//! whose loop the compiler vectorises: `exp` by Cody-Waite range reduction
//! and a degree-6 polynomial (within 2 ulp of libm's over the range a
//! softmax sees), `erf` by a rational approximation on [-4, 4] (within 5e-7
//! absolute), with AVX2 code chosen at run time where the CPU has it. The
//! tests hold `exp` to libm's, `erf` to an f64 series, and the fused
//! operations to burn's own, forward and backward.
//!
//! The matrix products ([`matmul`], and [`linear`] for the network's linear
//! layers) are here too, for their outputs: burn-flex builds each one as a
//! zeroed byte vector and then copies it into an aligned buffer before
//! `gemm` overwrites it, about a fifth of a `small` training step on an
//! Intel core (BENCHMARKS.md, "The train step against PyTorch on this Intel
//! machine"). Here `gemm` writes straight into an unfilled `f32` vector that
//! becomes the tensor without a copy; the arithmetic is burn-flex's own
//! (the same `gemm` call), so the values are the same.
//!
//! They are burn backend extensions (`#[backend_extension]`) on Flex, with
//! a hand-written backward for autodiff. Other backends (ndarray, wgpu) keep
//! burn's operations: [`softmax_last`], [`gelu`], [`matmul`] and [`linear`]
//! choose by the device.

use burn::backend::autodiff::checkpoint::base::Checkpointer;
use burn::backend::autodiff::checkpoint::strategy::CheckpointStrategy;
use burn::backend::autodiff::grads::Gradients;
use burn::backend::autodiff::ops::{Backward, Ops, OpsKind};
use burn::backend::autodiff::Autodiff;
use burn::backend::tensor::FloatTensor;
use burn::backend::{backend_extension, Backend, Dispatch};
use burn::tensor::activation;
use burn::tensor::Tensor;

#[cfg(feature = "flex")]
use burn::backend::flex::{Flex, FlexTensor, Layout};

/// The softmax over the last axis and the exact GELU, each with the step
/// its backward pass needs.
#[backend_extension(Flex: cfg(feature = "flex"), Autodiff)]
pub trait FusedKernels: Backend {
    /// `softmax(x)` along the last axis.
    fn fused_softmax(x: FloatTensor<Self>) -> FloatTensor<Self>;
    /// The gradient at the softmax's input: `y * (grad - sum(grad * y))`
    /// per row, from its output `y`.
    fn fused_softmax_backward(y: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self>;
    /// `x * Phi(x)`, Phi the standard normal distribution function.
    fn fused_gelu(x: FloatTensor<Self>) -> FloatTensor<Self>;
    /// `grad * (Phi(x) + x * phi(x))`.
    fn fused_gelu_backward(x: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self>;
    /// `lhs @ rhs` over the last two axes, for operands whose leading axes
    /// are equal (no broadcasting: [`same_batch`]).
    fn fused_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self>;
}

/// Softmax over the last axis: the fused kernel on Flex, burn's elsewhere.
pub fn softmax_last<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    if on_flex(&x) {
        Tensor::from_dispatch(<Dispatch as FusedKernels>::fused_softmax(x.into_dispatch()))
    } else {
        activation::softmax(x, D - 1)
    }
}

/// The exact GELU: the fused kernel on Flex, burn's elsewhere.
pub fn gelu<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    if on_flex(&x) {
        Tensor::from_dispatch(<Dispatch as FusedKernels>::fused_gelu(x.into_dispatch()))
    } else {
        activation::gelu(x)
    }
}

/// `lhs @ rhs` over the last two axes: the unfilled-output kernel on Flex
/// when the leading axes agree, burn's matmul (which also broadcasts)
/// otherwise.
pub fn matmul<const D: usize>(lhs: Tensor<D>, rhs: Tensor<D>) -> Tensor<D> {
    if on_flex(&lhs) && same_batch(&lhs.shape(), &rhs.shape()) {
        Tensor::from_dispatch(<Dispatch as FusedKernels>::fused_matmul(lhs.into_dispatch(), rhs.into_dispatch()))
    } else {
        lhs.matmul(rhs)
    }
}

/// A linear layer, `x @ W + b` over `x`'s last axis: the rows of `x` as one
/// matrix through [`matmul`], so the weight is not broadcast over a batch.
/// The same parameters and values as `layer.forward(x)`.
pub fn linear<const D: usize>(layer: &burn::nn::Linear, x: Tensor<D>) -> Tensor<D> {
    if !on_flex(&x) {
        return layer.forward(x);
    }
    let mut dims = x.dims();
    let weight = layer.weight.val();
    let (rows, d_out) = (dims[..D - 1].iter().product::<usize>(), weight.dims()[1]);
    let y = matmul(x.reshape([rows, dims[D - 1]]), weight);
    let y = match &layer.bias {
        Some(bias) => y + bias.val().unsqueeze::<2>(),
        None => y,
    };
    dims[D - 1] = d_out;
    y.reshape(dims)
}

/// Whether two operands of a product have the same rank (at least 2), equal
/// leading axes and matching inner sizes: what [`FusedKernels::fused_matmul`]
/// computes; anything else (broadcasting) is burn's.
fn same_batch(lhs: &burn::tensor::Shape, rhs: &burn::tensor::Shape) -> bool {
    let rank = lhs.num_dims();
    rank >= 2 && rhs.num_dims() == rank && lhs[..rank - 2] == rhs[..rank - 2] && lhs[rank - 1] == rhs[rank - 2]
}

/// Whether `x` lives on the Flex backend (with or without autodiff).
fn on_flex<const D: usize>(x: &Tensor<D>) -> bool {
    #[cfg(feature = "flex")]
    return matches!(x.device().as_dispatch().clone().inner(), burn::backend::DispatchDevice::Flex(_));
    #[cfg(not(feature = "flex"))]
    {
        let _ = x;
        false
    }
}

#[cfg(feature = "flex")]
impl FusedKernels for Flex {
    fn fused_softmax(x: FloatTensor<Self>) -> FloatTensor<Self> {
        let Some((row, input)) = f32_rows(&x) else {
            let last = x.layout().shape().num_dims() - 1;
            return burn::backend::flex::ops::activation::softmax(x, last);
        };
        let mut out = vec![0.0f32; input.len()];
        by_rows(row, &mut out, [&input], |out, [x]| cpu::softmax_rows(x, out, row));
        from_f32(out, &x)
    }

    fn fused_softmax_backward(y: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self> {
        let (Some((row, y_data)), Some((_, g))) = (f32_rows(&y), f32_rows(&grad)) else {
            return composed_softmax_backward::<Self>(y, grad);
        };
        let mut out = vec![0.0f32; y_data.len()];
        by_rows(row, &mut out, [&y_data, &g], |out, [y, g]| cpu::softmax_backward_rows(y, g, out, row));
        from_f32(out, &y)
    }

    fn fused_gelu(x: FloatTensor<Self>) -> FloatTensor<Self> {
        let Some((_, input)) = f32_rows(&x) else {
            return <Flex as burn::backend::ops::ActivationOps<Flex>>::gelu(x);
        };
        let mut out = vec![0.0f32; input.len()];
        by_rows(1, &mut out, [&input], |out, [x]| cpu::gelu(x, out));
        from_f32(out, &x)
    }

    fn fused_gelu_backward(x: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self> {
        let (Some((_, input)), Some((_, g))) = (f32_rows(&x), f32_rows(&grad)) else {
            return <Flex as burn::backend::ops::ActivationOps<Flex>>::gelu_backward(x, grad);
        };
        let mut out = vec![0.0f32; input.len()];
        by_rows(1, &mut out, [&input, &g], |out, [x, g]| cpu::gelu_backward(x, g, out));
        from_f32(out, &x)
    }

    fn fused_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self> {
        match f32_product(&lhs, &rhs) {
            Some(product) => product,
            None => burn::backend::flex::ops::matmul::matmul(lhs, rhs),
        }
    }
}

/// The product of two f32 operands with equal leading axes, one `gemm`
/// call per matrix of the batch (strided operands, such as transposed
/// views, read in place), written into a vector that is never zeroed and
/// becomes the tensor's storage as it is; `None` for anything else (another
/// dtype, an empty axis, a negative stride).
#[cfg(feature = "flex")]
fn f32_product(lhs: &FlexTensor, rhs: &FlexTensor) -> Option<FlexTensor> {
    use burn::backend::DType;
    let (l, r) = (lhs.layout(), rhs.layout());
    let (ls, rs) = (l.shape(), r.shape());
    if lhs.dtype() != DType::F32 || rhs.dtype() != DType::F32 || !same_batch(ls, rs) {
        return None;
    }
    if !l.has_positive_strides() || !r.has_positive_strides() {
        return None;
    }
    let rank = ls.num_dims();
    let (m, k, n) = (ls[rank - 2], ls[rank - 1], rs[rank - 1]);
    let batch_dims = &ls[..rank - 2];
    let batch = batch_dims.iter().product::<usize>();
    if m == 0 || n == 0 || k == 0 || batch == 0 {
        return None;
    }
    let (lst, rst) = (l.strides(), r.strides());
    let (lhs_data, rhs_data) = (lhs.storage::<f32>(), rhs.storage::<f32>());
    // burn-flex's own threshold for spreading one product over threads.
    let parallelism = if m * n * k >= 192 * 192 * 192 { gemm::Parallelism::Rayon(0) } else { gemm::Parallelism::None };
    let mut out: Vec<f32> = Vec::with_capacity(batch * m * n);
    let mut index = vec![0usize; rank - 2];
    for b in 0..batch {
        let offset = |strides: &[isize], start: usize| {
            index.iter().zip(strides).fold(start as isize, |o, (&i, &s)| o + i as isize * s)
        };
        let (lo, ro) = (offset(lst, l.start_offset()), offset(rst, r.start_offset()));
        // SAFETY: the offsets and strides are the layouts' own, so every
        // element read is inside its storage; matrix `b` of the output is
        // the capacity's `[b m n, (b + 1) m n)`. With `read_dst` false gemm
        // writes every element of it without reading any (its alpha is
        // zero), and `set_len` below comes after every matrix is written.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                out.as_mut_ptr().add(b * m * n),
                1,
                n as isize,
                false,
                lhs_data.as_ptr().offset(lo),
                lst[rank - 1],
                lst[rank - 2],
                rhs_data.as_ptr().offset(ro),
                rst[rank - 1],
                rst[rank - 2],
                0.0,
                1.0,
                false,
                false,
                false,
                parallelism,
            );
        }
        // The next batch index, the last axis fastest (the output's order).
        for d in (0..rank - 2).rev() {
            index[d] += 1;
            if index[d] < batch_dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    // SAFETY: all `batch * m * n` values were written above.
    unsafe { out.set_len(batch * m * n) };
    let mut shape = batch_dims.to_vec();
    shape.extend([m, n]);
    Some(FlexTensor::new(
        burn::tensor::Bytes::from_elems(out),
        Layout::contiguous(burn::tensor::Shape::from(shape)),
        DType::F32,
    ))
}

/// Runs `kernel` over whole rows of `row` values: at once for a small
/// tensor, else on rayon's threads in chunks of about 32K values (a row's
/// result does not depend on the chunking, so neither does the output).
#[cfg(feature = "flex")]
fn by_rows<const N: usize>(
    row: usize,
    out: &mut [f32],
    inputs: [&[f32]; N],
    kernel: impl Fn(&mut [f32], [&[f32]; N]) + Sync,
) {
    use rayon::prelude::*;
    const GRAIN: usize = 1 << 15;
    if out.len() <= GRAIN {
        return kernel(out, inputs);
    }
    let chunk = (GRAIN / row).max(1) * row;
    out.par_chunks_mut(chunk).enumerate().for_each(|(i, out)| {
        let start = i * chunk;
        kernel(out, inputs.map(|x| &x[start..start + out.len()]));
    });
}

/// An f32 tensor's values in row-major order with the length of its last
/// axis; `None` for another dtype (the callers fall back to burn's kernels).
#[cfg(feature = "flex")]
fn f32_rows(x: &FlexTensor) -> Option<(usize, std::borrow::Cow<'_, [f32]>)> {
    use burn::backend::DType;
    if x.dtype() != DType::F32 {
        return None;
    }
    let last = x.layout().shape().last().copied().unwrap_or(1).max(1);
    if x.is_contiguous() {
        Some((last, std::borrow::Cow::Borrowed(x.storage::<f32>())))
    } else {
        Some((last, std::borrow::Cow::Owned(x.to_contiguous().storage::<f32>().to_vec())))
    }
}

#[cfg(feature = "flex")]
fn from_f32(values: Vec<f32>, like: &FlexTensor) -> FlexTensor {
    use burn::backend::DType;
    FlexTensor::new(
        burn::tensor::Bytes::from_elems(values),
        Layout::contiguous(like.layout().shape().clone()),
        DType::F32,
    )
}

/// `y * (grad - sum(grad * y))` along the last axis, from burn's operations.
fn composed_softmax_backward<B: Backend>(y: FloatTensor<B>, grad: FloatTensor<B>) -> FloatTensor<B> {
    use burn::backend::TensorMetadata;
    let last = y.shape().num_dims() - 1;
    let dot = B::float_sum_dim(B::float_mul(grad.clone(), y.clone()), last);
    B::float_mul(y, B::float_sub(grad, dot))
}

/// Autodiff: the forward on the inner backend, and a backward step that
/// keeps the softmax's output (or the GELU's input) for the gradient.
impl<B: Backend + FusedKernels, C: CheckpointStrategy> FusedKernels for Autodiff<B, C> {
    fn fused_softmax(x: FloatTensor<Self>) -> FloatTensor<Self> {
        tracked::<B, C>(x, B::fused_softmax, B::fused_softmax_backward, Kept::Output)
    }

    fn fused_softmax_backward(y: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self> {
        composed_softmax_backward::<Self>(y, grad)
    }

    fn fused_gelu(x: FloatTensor<Self>) -> FloatTensor<Self> {
        tracked::<B, C>(x, B::fused_gelu, B::fused_gelu_backward, Kept::Input)
    }

    fn fused_gelu_backward(x: FloatTensor<Self>, grad: FloatTensor<Self>) -> FloatTensor<Self> {
        <Self as burn::backend::ops::ActivationOps<Self>>::gelu_backward(x, grad)
    }

    fn fused_matmul(lhs: FloatTensor<Self>, rhs: FloatTensor<Self>) -> FloatTensor<Self> {
        use burn::backend::TensorMetadata;
        if !same_batch(&lhs.shape(), &rhs.shape()) {
            return <Self as burn::backend::ops::FloatTensorOps<Self>>::float_matmul(lhs, rhs);
        }
        match MatmulBackward.prepare::<C>([lhs.node(), rhs.node()]).compute_bound().stateful() {
            OpsKind::Tracked(prep) => {
                let (l, r) = (lhs.primitive().clone(), rhs.primitive().clone());
                let y = B::fused_matmul(l.clone(), r.clone());
                prep.finish((l, r), y)
            }
            OpsKind::UnTracked(prep) => prep.finish(B::fused_matmul(lhs.into_primitive(), rhs.into_primitive())),
        }
    }
}

/// The backward step of a product `y = lhs @ rhs` (equal leading axes):
/// `grad @ rhs^T` at `lhs` and `lhs^T @ grad` at `rhs`, each itself a fused
/// product of transposed views.
#[derive(Debug)]
struct MatmulBackward;

impl<B: Backend + FusedKernels> Backward<B, 2> for MatmulBackward {
    type State = (FloatTensor<B>, FloatTensor<B>);
    fn backward(self, ops: Ops<Self::State, 2>, grads: &mut Gradients, _: &mut Checkpointer) {
        use burn::backend::TensorMetadata;
        let [lhs_node, rhs_node] = ops.parents;
        let grad = grads.consume::<B>(&ops.node);
        let (lhs, rhs) = ops.state;
        let last = grad.shape().num_dims() - 1;
        if let Some(node) = lhs_node {
            grads.register::<B>(node.id, B::fused_matmul(grad.clone(), B::float_swap_dims(rhs, last - 1, last)));
        }
        if let Some(node) = rhs_node {
            grads.register::<B>(node.id, B::fused_matmul(B::float_swap_dims(lhs, last - 1, last), grad));
        }
    }
}

/// What a one-input operation keeps for its gradient.
enum Kept {
    Input,
    Output,
}

/// The backward step of a one-input operation: `gradient(kept, grad)`.
#[derive(Debug)]
struct OneInputBackward<B: Backend> {
    gradient: fn(FloatTensor<B>, FloatTensor<B>) -> FloatTensor<B>,
}

impl<B: Backend> Backward<B, 1> for OneInputBackward<B> {
    type State = FloatTensor<B>;
    fn backward(self, ops: Ops<Self::State, 1>, grads: &mut Gradients, _: &mut Checkpointer) {
        let [parent] = ops.parents;
        let grad = grads.consume::<B>(&ops.node);
        if let Some(node) = parent {
            grads.register::<B>(node.id, (self.gradient)(ops.state, grad));
        }
    }
}

/// `forward` on the inner backend, recorded for autodiff when `x` is
/// tracked, with `gradient` as its backward step.
fn tracked<B: Backend, C: CheckpointStrategy>(
    x: FloatTensor<Autodiff<B, C>>,
    forward: fn(FloatTensor<B>) -> FloatTensor<B>,
    gradient: fn(FloatTensor<B>, FloatTensor<B>) -> FloatTensor<B>,
    kept: Kept,
) -> FloatTensor<Autodiff<B, C>> {
    match (OneInputBackward { gradient }).prepare::<C>([x.node()]).compute_bound().stateful() {
        OpsKind::Tracked(prep) => {
            let input = x.primitive().clone();
            let y = forward(input.clone());
            let state = match kept {
                Kept::Input => input,
                Kept::Output => y.clone(),
            };
            prep.finish(state, y)
        }
        OpsKind::UnTracked(prep) => prep.finish(forward(x.into_primitive())),
    }
}

/// The kernels on plain slices: one loop body each, compiled twice (for
/// AVX2, chosen at run time, and for the build's baseline).
pub mod cpu {
    /// Defines `pub fn $name` to run `$body` compiled with AVX2 where the
    /// CPU has it (std checks once and caches), else compiled for the
    /// baseline.
    macro_rules! kernel {
        ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) => $body:ident) => {
            $(#[$doc])*
            pub fn $name($($arg: $ty),*) {
                #[cfg(target_arch = "x86_64")]
                {
                    #[target_feature(enable = "avx2")]
                    unsafe fn wide($($arg: $ty),*) {
                        $body($($arg),*)
                    }
                    if std::is_x86_feature_detected!("avx2") {
                        // SAFETY: the CPU has the feature `wide` was compiled for.
                        return unsafe { wide($($arg),*) };
                    }
                }
                $body($($arg),*)
            }
        };
    }

    kernel!(
        /// `softmax` of each row of `row` values.
        softmax_rows(input: &[f32], out: &mut [f32], row: usize) => softmax_rows_body
    );
    kernel!(
        /// `y * (g - sum(g * y))` of each row of `row` values.
        softmax_backward_rows(y: &[f32], g: &[f32], out: &mut [f32], row: usize) => softmax_backward_rows_body
    );
    kernel!(
        /// The exact GELU of each value.
        gelu(input: &[f32], out: &mut [f32]) => gelu_body
    );
    kernel!(
        /// The GELU's derivative at each `x`, times `g`.
        gelu_backward(x: &[f32], g: &[f32], out: &mut [f32]) => gelu_backward_body
    );

    /// Lanes of the explicit accumulators: wide enough for AVX-512, and
    /// what lets the compiler vectorise the reductions (a float sum or max
    /// in one accumulator has an order it may not change).
    const LANES: usize = 16;

    #[inline(always)]
    fn softmax_rows_body(input: &[f32], out: &mut [f32], row: usize) {
        for (x, y) in input.chunks_exact(row).zip(out.chunks_exact_mut(row)) {
            let max = row_max(x);
            for (y, &x) in y.iter_mut().zip(x) {
                *y = exp(x - max);
            }
            let inv = 1.0 / row_sum(y);
            for y in y.iter_mut() {
                *y *= inv;
            }
        }
    }

    #[inline(always)]
    fn softmax_backward_rows_body(y: &[f32], g: &[f32], out: &mut [f32], row: usize) {
        for ((y, g), o) in y.chunks_exact(row).zip(g.chunks_exact(row)).zip(out.chunks_exact_mut(row)) {
            let mut acc = [0.0f32; LANES];
            let (y_body, g_body) = (y.chunks_exact(LANES), g.chunks_exact(LANES));
            let tail: f32 = y_body.remainder().iter().zip(g_body.remainder()).map(|(a, b)| a * b).sum();
            for (a, b) in y_body.zip(g_body) {
                for i in 0..LANES {
                    acc[i] += a[i] * b[i];
                }
            }
            let dot = acc.iter().sum::<f32>() + tail;
            for ((o, &y), &g) in o.iter_mut().zip(y).zip(g) {
                *o = y * (g - dot);
            }
        }
    }

    #[inline(always)]
    fn gelu_body(input: &[f32], out: &mut [f32]) {
        for (o, &x) in out.iter_mut().zip(input) {
            *o = 0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
        }
    }

    #[inline(always)]
    fn gelu_backward_body(x: &[f32], g: &[f32], out: &mut [f32]) {
        // 1 / sqrt(2 pi)
        const INV_SQRT_2PI: f32 = 0.398_942_3;
        for ((o, &x), &g) in out.iter_mut().zip(x).zip(g) {
            let cdf = 0.5 * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2));
            let pdf = INV_SQRT_2PI * exp(-0.5 * x * x);
            *o = g * (cdf + x * pdf);
        }
    }

    #[inline(always)]
    fn row_max(x: &[f32]) -> f32 {
        let mut acc = [f32::NEG_INFINITY; LANES];
        let body = x.chunks_exact(LANES);
        let mut max = body.remainder().iter().fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
        for c in body {
            for i in 0..LANES {
                acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
            }
        }
        for a in acc {
            max = if a > max { a } else { max };
        }
        max
    }

    #[inline(always)]
    fn row_sum(x: &[f32]) -> f32 {
        let mut acc = [0.0f32; LANES];
        let body = x.chunks_exact(LANES);
        let tail: f32 = body.remainder().iter().sum();
        for c in body {
            for i in 0..LANES {
                acc[i] += c[i];
            }
        }
        acc.iter().sum::<f32>() + tail
    }

    /// `e^x` without branches: x = n ln 2 + r with |r| <= ln 2 / 2 (Cody and
    /// Waite's two-part ln 2), e^r by Cephes' degree-6 polynomial, 2^n by
    /// writing the exponent bits. Below -87.3 the result is the smallest
    /// normal power (about 1e-38, not 0); above 88.7, 2^128 (infinity).
    /// NaN stays NaN.
    #[inline(always)]
    pub fn exp(x: f32) -> f32 {
        const LOG2E: f32 = std::f32::consts::LOG2_E;
        const LN2_HI: f32 = 0.693_359_4;
        const LN2_LO: f32 = -2.121_944_4e-4;
        // 1.5 * 2^23: adding it rounds to an integer held in the low bits.
        const ROUND: f32 = 12_582_912.0;
        let x = if x < -87.3 { -87.3 } else { x };
        let x = if x > 88.7 { 88.7 } else { x };
        let shifted = x * LOG2E + ROUND;
        let n = shifted - ROUND;
        let r = x - n * LN2_HI - n * LN2_LO;
        let mut p = 1.987_569_1e-4f32;
        p = p * r + 1.398_199_9e-3;
        p = p * r + 8.333_452e-3;
        p = p * r + 4.166_579_6e-2;
        p = p * r + 1.666_666_5e-1;
        // The fit's 5.000_000_1e-1 rounds to 0.5 exactly in f32.
        p = p * r + 0.5;
        let er = p * r * r + r + 1.0;
        // n sits in the low mantissa bits of `shifted` (its exponent is 23
        // above the ones place): add the bias and move it to the exponent.
        let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
        er * f32::from_bits(((n_bits + 127) as u32) << 23)
    }

    /// The error function by the rational approximation of Eigen's
    /// `generic_fast_erf_float` (odd numerator of degree 13, even
    /// denominator of degree 8, on x clamped to [-4, 4], where erf is 1 to
    /// within f32's resolution).
    #[inline(always)]
    pub fn erf(x: f32) -> f32 {
        let x = if x < -4.0 { -4.0 } else { x };
        let x = if x > 4.0 { 4.0 } else { x };
        let x2 = x * x;
        let mut p = -2.726_142_3e-10f32;
        p = p * x2 + 2.770_681_4e-8;
        p = p * x2 + -2.101_024e-6;
        p = p * x2 + -5.692_506_4e-5;
        p = p * x2 + -7.349_906_3e-4;
        p = p * x2 + -2.954_600_1e-3;
        p = p * x2 + -1.609_603_3e-2;
        let mut q = -1.456_607_2e-5f32;
        q = q * x2 + -2.133_740_6e-4;
        q = q * x2 + -1.682_827e-3;
        q = q * x2 + -7.373_329_2e-3;
        q = q * x2 + -1.426_474e-2;
        x * p / q
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::cpu;
    use super::*;
    use burn::tensor::Distribution;

    #[test]
    fn exp_is_within_two_ulp_of_libm_over_a_softmax_range() {
        let mut worst = 0.0f64;
        for i in 0..=200_000 {
            let x = -87.0 + 97.0 * i as f32 / 200_000.0;
            let (ours, libm) = (cpu::exp(x), x.exp());
            let ulp = (libm.to_bits() as i64 - ours.to_bits() as i64).abs() as f64;
            worst = worst.max(ulp);
        }
        assert!(worst <= 2.0, "worst {worst} ulp");
        assert_eq!(cpu::exp(0.0), 1.0);
        assert!(cpu::exp(-1e9) < 1.3e-38 && cpu::exp(-1e9) >= 0.0);
        assert!(cpu::exp(f32::NAN).is_nan());
    }

    #[test]
    fn erf_is_within_5e7_of_an_f64_reference() {
        let mut worst = 0.0f32;
        for i in 0..=200_000 {
            let x = -6.0 + 12.0 * i as f32 / 200_000.0;
            worst = worst.max((cpu::erf(x) - libm_erf(x)).abs());
        }
        assert!(worst <= 5e-7, "worst {worst}");
        assert!(cpu::erf(f32::NAN).is_nan());
    }

    fn libm_erf(x: f32) -> f32 {
        // erf from its series (|x| < 3) or 1 - erfc's continued fraction,
        // in f64: an independent reference to 1e-12.
        let x = x as f64;
        let value = if x.abs() < 3.0 {
            let (mut term, mut sum, mut n) = (x, x, 0.0f64);
            while term.abs() > 1e-17 {
                n += 1.0;
                term *= -x * x / n;
                sum += term / (2.0 * n + 1.0);
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            let t = x.abs();
            let mut f = 0.0f64;
            for k in (1..60).rev() {
                f = (k as f64 / 2.0) / (t + f);
            }
            let erfc = (-t * t).exp() / std::f64::consts::PI.sqrt() / (t + f);
            (1.0 - erfc).copysign(x)
        };
        value as f32
    }

    /// The largest difference between two tensors' values, relative to
    /// one plus the second's magnitude.
    pub(crate) fn max_difference(a: Tensor<3>, b: Tensor<3>) -> f32 {
        let (a, b) = (a.into_data().try_to_vec::<f32>().unwrap(), b.into_data().try_to_vec::<f32>().unwrap());
        a.iter().zip(&b).map(|(x, y)| (x - y).abs() / (1.0 + y.abs())).fold(0.0, f32::max)
    }

    /// The unfilled-output product and the linear layer give burn's values
    /// and gradients, on contiguous operands, transposed views and batches
    /// of heads; a broadcast product is burn's own.
    #[test]
    fn the_fused_matmul_and_linear_agree_with_burns_forward_and_backward() {
        use burn::nn::LinearConfig;
        let flex = crate::device("flex").unwrap();
        let rel = |a: Vec<f32>, b: Vec<f32>| {
            a.iter().zip(&b).map(|(x, y)| (x - y).abs() / (1.0 + y.abs())).fold(0.0, f32::max)
        };
        let values = |t: Tensor<4>| t.into_data().try_to_vec::<f32>().unwrap();
        for (device, tracked) in [(flex.clone(), false), (flex.clone().autodiff(), true)] {
            let normal = |shape: [usize; 4]| Tensor::<4>::random(shape, Distribution::Normal(0.0, 1.0), &device);
            // (lhs, rhs, transpose rhs first): the attention's shapes, a
            // product large enough for threads, and a transposed operand.
            for (ls, rs, transposed) in [
                ([2, 4, 93, 32], [2, 4, 32, 93], false),
                ([2, 4, 93, 32], [2, 4, 93, 32], true),
                ([1, 1, 200, 300], [1, 1, 300, 250], false),
                ([3, 1, 5, 7], [3, 1, 7, 1], false),
            ] {
                let (a, b) = (normal(ls), normal(rs));
                let rhs = |b: Tensor<4>| if transposed { b.swap_dims(2, 3) } else { b };
                let d = rel(values(matmul(a.clone(), rhs(b.clone()))), values(a.clone().matmul(rhs(b.clone()))));
                assert!(d < 1e-5, "{ls:?} x {rs:?}: forward differs by {d}");
                if tracked {
                    let grads_of = |f: &dyn Fn(Tensor<4>, Tensor<4>) -> Tensor<4>| {
                        let (a, b) = (a.clone().detach().require_grad(), b.clone().detach().require_grad());
                        let grads = f(a.clone(), rhs(b.clone())).powi_scalar(2).sum().backward();
                        (values(a.grad(&grads).unwrap()), values(b.grad(&grads).unwrap()))
                    };
                    let (ours, theirs) = (grads_of(&|a, b| matmul(a, b)), grads_of(&|a, b| a.matmul(b)));
                    let d = rel(ours.0, theirs.0).max(rel(ours.1, theirs.1));
                    assert!(d < 1e-4, "{ls:?} x {rs:?}: gradient differs by {d}");
                }
            }
            // A broadcast product falls back to burn's.
            let (a, b) = (normal([2, 3, 5, 7]), normal([1, 1, 7, 4]));
            assert_eq!(values(matmul(a.clone(), b.clone())), values(a.matmul(b)));

            let layer = LinearConfig::new(128, 40).init(&device);
            let x = Tensor::<3>::random([3, 93, 128], Distribution::Normal(0.0, 1.0), &device);
            let d = max_difference(linear(&layer, x.clone()), layer.forward(x.clone()));
            assert!(d < 1e-5, "linear: forward differs by {d}");
            if tracked {
                let grads_of = |f: &dyn Fn(Tensor<3>) -> Tensor<3>| {
                    let x = x.clone().detach().require_grad();
                    let grads = f(x.clone()).powi_scalar(2).sum().backward();
                    let weight = layer.weight.grad(&grads).unwrap().into_data().try_to_vec::<f32>().unwrap();
                    let bias = layer.bias.as_ref().unwrap().grad(&grads).unwrap().into_data().try_to_vec::<f32>();
                    (x.grad(&grads).unwrap().into_data().try_to_vec::<f32>().unwrap(), weight, bias.unwrap())
                };
                let (ours, theirs) = (grads_of(&|x| linear(&layer, x)), grads_of(&|x| layer.forward(x)));
                let d = rel(ours.0, theirs.0).max(rel(ours.1, theirs.1)).max(rel(ours.2, theirs.2));
                assert!(d < 1e-4, "linear: gradient differs by {d}");
            }
        }
    }

    #[test]
    fn the_fused_softmax_and_gelu_agree_with_burns_forward_and_backward() {
        let flex = crate::device("flex").unwrap();
        for (device, tracked) in [(flex.clone(), false), (flex.clone().autodiff(), true)] {
            // Rows of 93 (the attention's), 1800 (a policy) and 7 (a tail
            // shorter than the lanes); values spread as attention scores.
            // The last shape is large enough to be split across threads.
            for shape in [[2, 3, 93], [2, 1, 1800], [4, 5, 7], [8, 5, 1801]] {
                let x = Tensor::<3>::random(shape, Distribution::Normal(0.0, 4.0), &device);
                let g = Tensor::<3>::random(shape, Distribution::Normal(0.0, 1.0), &device);
                type Op = fn(Tensor<3>) -> Tensor<3>;
                let pairs: [(&str, Op, Op); 2] =
                    [("softmax", softmax_last, |x| activation::softmax(x, 2)), ("gelu", gelu, activation::gelu)];
                for (name, ours, theirs) in pairs {
                    let d = max_difference(ours(x.clone()), theirs(x.clone()));
                    assert!(d < 1e-5, "{name} {shape:?}: forward differs by {d}");
                    if tracked {
                        let grad_of = |f: fn(Tensor<3>) -> Tensor<3>| {
                            let x = x.clone().detach().require_grad();
                            let grads = (f(x.clone()) * g.clone()).sum().backward();
                            x.grad(&grads).unwrap_or_else(|| panic!("{name}: no gradient"))
                        };
                        let d = max_difference(grad_of(ours), grad_of(theirs));
                        assert!(d < 1e-5, "{name} {shape:?}: gradient differs by {d}");
                    }
                }
            }
        }
    }
}
