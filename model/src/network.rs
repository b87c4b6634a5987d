//! The network: a pre-LayerNorm transformer encoder over the 92 square
//! tokens and a value token, with policy, value and belief heads.

use burn::module::{Module, ModuleVisitor, Param};
use burn::nn::transformer::{TransformerEncoder, TransformerEncoderConfig};
use burn::nn::{LayerNorm, LayerNormConfig, Linear, LinearConfig};
use burn::tensor::{Bool, Device, Distribution, Int, Tensor, TensorData};

use stratego_engine::Layout;

use crate::config::ModelConfig;
use crate::kernels;
use crate::tokens::{action_pairs, token_cells, SQUARE_TOKENS, TYPES};

/// The logit given to illegal actions: large and finite, since negative
/// infinity turns a masked cross-entropy into NaN (0 x -inf).
pub const MASKED_LOGIT: f32 = -1.0e9;

/// The smallest prior probability the belief head starts from (log 1e-6 is
/// about -13.8: impossible types stay learnable, not infinitely unlikely).
const PRIOR_FLOOR: f32 = 1e-6;

/// Index of each outcome in the value head's logits.
pub const LOSS: usize = 0;
pub const DRAW: usize = 1;
pub const WIN: usize = 2;

#[derive(Module, Debug)]
pub struct StrategoNet {
    /// Each square token: a linear projection of that square's planes...
    embed: Linear,
    /// ... plus a learned position embedding.
    position: Param<Tensor<2>>,
    /// The learned value token, appended after the square tokens.
    value_token: Param<Tensor<2>>,
    encoder: TransformerEncoder,
    final_norm: LayerNorm,
    policy_query: Linear,
    policy_key: Linear,
    /// Loss, draw, win logits from the value token.
    value_head: Linear,
    /// Per square, logits over the 12 types of an opponent piece there.
    belief_head: Linear,
    /// The observation layout the network reads: its plane count sizes
    /// `embed`, and its table names the prior planes the belief head
    /// refines. Not a tensor (checkpoints store the layout's identity in
    /// their metadata instead).
    #[module(skip)]
    layout: Layout,
}

/// What one forward pass gives, for a batch of B observations.
pub struct NetOutput {
    /// `[B, 1800]` action logits, illegal ones set to `MASKED_LOGIT`.
    pub policy_logits: Tensor<2>,
    /// `[B, 3]` loss / draw / win logits.
    pub value_logits: Tensor<2>,
    /// `[B, 92, 12]` type logits per square token.
    pub belief_logits: Tensor<3>,
}

/// Initialises every parameter it visits (see `StrategoNet::new`).
struct Materialize;

impl ModuleVisitor for Materialize {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}

impl StrategoNet {
    /// A fresh network of the `tiny` preset, the smallest: what smoke runs
    /// and the tests of every crate train and play with.
    pub fn tiny(layout: Layout, device: &Device) -> StrategoNet {
        StrategoNet::new(&ModelConfig::preset("tiny").expect("the tiny preset exists"), layout, device)
    }

    /// A freshly initialised network over the planes of `layout`.
    pub fn new(config: &ModelConfig, layout: Layout, device: &Device) -> StrategoNet {
        let net = StrategoNet::lazy(config, layout, device);
        // burn initialises most parameters lazily, drawing from the
        // backend's one generator at their first use: in whichever thread
        // touches them first, after whatever else drew from it meanwhile.
        // Drawing them all here makes the network a function of the
        // generator's state at construction (`device.seed(s)` just before).
        net.visit(&mut Materialize);
        net
    }

    /// The network's shape with most parameters not yet drawn: for a
    /// checkpoint to fill in (`checkpoint::load_bytes`) without drawing a
    /// random initialisation it would overwrite.
    pub(crate) fn lazy(config: &ModelConfig, layout: Layout, device: &Device) -> StrategoNet {
        let d = config.d_model;
        let encoder = TransformerEncoderConfig::new(d, config.ffn, config.heads, config.layers)
            .with_dropout(config.dropout)
            .with_norm_first(true)
            .init(device);
        StrategoNet {
            embed: LinearConfig::new(layout.channels(), d).init(device),
            position: Param::from_tensor(Tensor::random([SQUARE_TOKENS, d], Distribution::Normal(0.0, 0.1), device)),
            value_token: Param::from_tensor(Tensor::random([1, d], Distribution::Normal(0.0, 0.1), device)),
            encoder,
            final_norm: LayerNormConfig::new(d).init(device),
            policy_query: LinearConfig::new(d, d).init(device),
            policy_key: LinearConfig::new(d, d).init(device),
            value_head: LinearConfig::new(d, 3).init(device),
            belief_head: LinearConfig::new(d, TYPES).init(device),
            layout,
        }
    }

    /// The observation layout the network was built for.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// `planes`: `[B, C, 100]` (the engine's `[B, C, 10, 10]` buffers of
    /// the network's layout, flattened per plane); `legal`: `[B, 1800]`,
    /// true where legal. Panics if C is not the layout's plane count.
    pub fn forward(&self, planes: Tensor<3>, legal: Tensor<2, Bool>) -> NetOutput {
        let device = planes.device();
        let [batch, channels, cells_count] = planes.dims();
        assert_eq!(
            channels,
            self.layout.channels(),
            "the network reads {} observations ({} planes)",
            self.layout,
            self.layout.channels()
        );
        let d = self.position.val().dims()[1];
        // [B, C, 100] -> [B, 100, C] -> the 92 square tokens.
        let cells = token_cells().iter().map(|&c| c as i64).collect::<Vec<_>>();
        let cells = Tensor::<1, Int>::from_data(TensorData::new(cells, [SQUARE_TOKENS]), &device);
        let squares = planes.clone().swap_dims(1, 2).select(1, cells.clone());
        let squares = kernels::linear(&self.embed, squares) + self.position.val().unsqueeze::<3>();
        let value = self.value_token.val().unsqueeze::<3>().expand([batch, 1, d]);
        let tokens = Tensor::cat(vec![squares, value], 1);
        let hidden = crate::encoder::forward(&self.encoder, tokens);
        let hidden = self.final_norm.forward(hidden);
        let squares = hidden.clone().slice([0..batch, 0..SQUARE_TOKENS, 0..d]);
        let value = hidden.slice([0..batch, SQUARE_TOKENS..SQUARE_TOKENS + 1, 0..d]).reshape([batch, d]);

        // logit(src -> dst) = q_src . k_dst / sqrt(d), gathered into action ids.
        let q = kernels::linear(&self.policy_query, squares.clone());
        let k = kernels::linear(&self.policy_key, squares.clone());
        let pair_logits = kernels::matmul(q, k.swap_dims(1, 2)).div_scalar((d as f32).sqrt());
        let pair_logits = pair_logits.reshape([batch, SQUARE_TOKENS * SQUARE_TOKENS]);
        let pairs = action_pairs();
        let index = pairs.iter().map(|p| p.unwrap_or(0) as i64).collect::<Vec<_>>();
        let index = Tensor::<1, Int>::from_data(TensorData::new(index, [pairs.len()]), &device);
        let on_board = pairs.iter().map(|p| p.is_some()).collect::<Vec<_>>();
        let on_board = Tensor::<1, Bool>::from_data(TensorData::new(on_board, [pairs.len()]), &device);
        let allowed = legal.bool_and(on_board.unsqueeze::<2>().expand([batch, pairs.len()]));
        let policy_logits = pair_logits.select(1, index).mask_fill(allowed.bool_not(), MASKED_LOGIT);

        // The belief head refines the counting prior that the observation
        // already holds: its logits are added to log(prior), so an untrained
        // head starts at the prior and learns what setups and play reveal
        // beyond it. Squares without a hidden piece have no prior (all zero
        // planes): the floor gives them equal logits, which the loss ignores.
        // The prior planes are the layout's prior group, found by name in
        // its table.
        let r = self.layout.prior_planes();
        let prior = planes.slice([0..batch, r.start..r.end, 0..cells_count]).swap_dims(1, 2).select(1, cells);
        let belief_logits = kernels::linear(&self.belief_head, squares) + prior.clamp_min(PRIOR_FLOOR).log();
        NetOutput { policy_logits, value_logits: kernels::linear(&self.value_head, value), belief_logits }
    }
}
