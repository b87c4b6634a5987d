//! The transformer encoder's forward pass over burn-nn's modules (the same
//! parameters, so checkpoints are unchanged), with the attention softmax,
//! the feed-forward GELU and the matrix products taken from `kernels`
//! (fused on the CPU). The steps
//! are burn-nn's own for a pre-LayerNorm encoder without masks; an encoder
//! of another kind (post-norm, quiet softmax, another activation) runs
//! burn-nn's forward instead.

use burn::nn::activation::Activation;
use burn::nn::attention::MultiHeadAttention;
use burn::nn::transformer::{TransformerEncoder, TransformerEncoderInput, TransformerEncoderLayer};
use burn::tensor::Tensor;

use crate::kernels;

/// `[B, S, d]` tokens through every layer of `encoder`.
pub fn forward(encoder: &TransformerEncoder, tokens: Tensor<3>) -> Tensor<3> {
    if !encoder.layers.iter().all(replicated) {
        return encoder.forward(TransformerEncoderInput::new(tokens));
    }
    encoder.layers.iter().fold(tokens, layer)
}

/// Whether this module's forward is a layer of the kind `layer` computes.
fn replicated(l: &TransformerEncoderLayer) -> bool {
    l.norm_first && !l.mha.quiet_softmax && matches!(l.pwff.activation, Activation::Gelu(_))
}

/// x + attention(norm_2(x)), then + feed_forward(norm_1(x)).
fn layer(x: Tensor<3>, l: &TransformerEncoderLayer) -> Tensor<3> {
    let attended = attention(&l.mha, l.norm_2.forward(x.clone()));
    let x = x + l.dropout.forward(attended);
    let ff = &l.pwff;
    let hidden = ff.dropout.forward(kernels::gelu(kernels::linear(&ff.linear_inner, l.norm_1.forward(x.clone()))));
    x + l.dropout.forward(kernels::linear(&ff.linear_outer, hidden))
}

/// Multi-head self-attention: softmax(q k^T / sqrt(d_k)) v per head.
fn attention(mha: &MultiHeadAttention, x: Tensor<3>) -> Tensor<3> {
    let [batch, tokens, d_model] = x.dims();
    let heads = |linear: &burn::nn::Linear| {
        kernels::linear(linear, x.clone()).reshape([batch, tokens, mha.n_heads, mha.d_k]).swap_dims(1, 2)
    };
    let (q, k, v) = (heads(&mha.query), heads(&mha.key), heads(&mha.value));
    let scores = kernels::matmul(q, k.transpose()).div_scalar((mha.d_k as f32).sqrt());
    let weights = mha.dropout.forward(kernels::softmax_last(scores));
    let context = kernels::matmul(weights, v).swap_dims(1, 2).reshape([batch, tokens, d_model]);
    kernels::linear(&mha.output, context)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::tests::max_difference;
    use burn::nn::transformer::TransformerEncoderConfig;
    use burn::tensor::Distribution;

    /// The forward pass and the gradient at the input are burn-nn's, on the
    /// `small` preset's shapes (4 heads, two layers here) and the token count.
    #[test]
    fn the_encoder_computes_what_burn_nns_forward_computes() {
        let flex = crate::device("flex").unwrap();
        for (device, tracked) in [(flex.clone(), false), (flex.clone().autodiff(), true)] {
            let encoder =
                TransformerEncoderConfig::new(128, 512, 4, 2).with_norm_first(true).with_dropout(0.0).init(&device);
            assert!(encoder.layers.iter().all(replicated));
            let x = Tensor::<3>::random([3, 93, 128], Distribution::Normal(0.0, 1.0), &device);
            let burns = |x: Tensor<3>| encoder.forward(TransformerEncoderInput::new(x));
            let d = max_difference(forward(&encoder, x.clone()), burns(x.clone()));
            assert!(d < 1e-4, "forward differs by {d}");
            if tracked {
                let grad_of = |f: &dyn Fn(Tensor<3>) -> Tensor<3>| {
                    let x = x.clone().detach().require_grad();
                    let grads = f(x.clone()).powi_scalar(2).sum().backward();
                    x.grad(&grads).unwrap()
                };
                let d = max_difference(grad_of(&|x| forward(&encoder, x)), grad_of(&burns));
                assert!(d < 1e-4, "gradient differs by {d}");
            }
        }
        // Post-norm is not replicated: burn-nn's forward runs it.
        let post = TransformerEncoderConfig::new(32, 64, 2, 1).init(&flex);
        assert!(!post.layers.iter().all(replicated));
    }
}
