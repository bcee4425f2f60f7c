//! BERT's encoder, as `transformers`' `BertModel` computes its last hidden states, over candle's
//! tensors: the embedder's and the cross-encoder's body.
//!
//! Hand-written in place of candle-transformers' `BertModel` (the same weights, names and
//! configuration) for three of its steps, which candle runs one number at a time on one thread:
//! GELU, the attention's softmax (five passes over the scores, each a new tensor) and the padding
//! mask added to every score. Here GELU and a masked softmax run in place through `kernels`, and
//! the query, key and value products are one. Every other step is candle's own layer: the
//! embeddings, the linear layers (their weights laid out by `transposed`) and layer norm.
//!
//! Padding is always at the end of a row (the embedder and the cross-encoder pad so), so a row's
//! mask is its length: what `BertModel`'s additive mask (the least f32 at a padded position)
//! computes, as `e^(least f32)` is 0.

use candle_core::{CpuStorage, InplaceOp1, InplaceOp2, Layout, Module, Result, Tensor};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use candle_transformers::models::bert::{Config, HiddenAct};

use super::kernels::{add_repeated, gelu_in_place, masked_softmax_in_place};

/// A loaded BERT encoder.
pub struct Encoder {
    words: Embedding,
    positions: Embedding,
    types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
}

/// One transformer layer.
struct Layer {
    /// Query, key and value, one product: their weights side by side.
    query_key_value: Linear,
    attention_output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl Encoder {
    /// The encoder under `weights` (or its `bert.` prefix, as in a classifier's checkpoint).
    /// Only the activation BERT models are trained with here, exact GELU, is accepted.
    pub fn load(weights: VarBuilder, config: &Config) -> Result<Encoder> {
        if config.hidden_act != HiddenAct::Gelu {
            candle_core::bail!(
                "hidden_act {:?}: only \"gelu\" is supported",
                config.hidden_act
            );
        }
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            candle_core::bail!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                config.hidden_size,
                config.num_attention_heads
            );
        }
        let root = if weights.contains_tensor("bert.embeddings.word_embeddings.weight") {
            weights.pp("bert")
        } else {
            weights
        };
        let (size, eps) = (config.hidden_size, config.layer_norm_eps);
        let at = root.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|n| Layer::load(root.pp(format!("encoder.layer.{n}")), config))
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            words: embedding(config.vocab_size, size, at.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                size,
                at.pp("position_embeddings"),
            )?,
            types: embedding(config.type_vocab_size, size, at.pp("token_type_embeddings"))?,
            embeddings_norm: layer_norm(size, eps, at.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
        })
    }

    /// The last hidden states, `(rows, width, hidden)`, of `ids` and `types` (`(rows, width)`),
    /// row `r` holding `lengths[r]` pieces and then padding.
    pub fn forward(&self, ids: &Tensor, types: &Tensor, lengths: &[usize]) -> Result<Tensor> {
        let (_, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, ids.device())?;
        let summed = self
            .words
            .forward(ids)?
            .add(&self.types.forward(types)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let mut hidden = self.embeddings_norm.forward(&summed)?;
        for layer in &self.layers {
            hidden = layer.forward(&hidden, lengths, self.heads)?;
        }
        Ok(hidden)
    }
}

impl Layer {
    fn load(at: VarBuilder, config: &Config) -> Result<Layer> {
        let (size, eps) = (config.hidden_size, config.layer_norm_eps);
        let attention = at.pp("attention");
        let own = attention.pp("self");
        let part = |name: &str| -> Result<Linear> { linear(size, size, own.pp(name)) };
        let (query, key, value) = (part("query")?, part("key")?, part("value")?);
        let weight = Tensor::cat(&[query.weight(), key.weight(), value.weight()], 0)?;
        let bias = [&query, &key, &value]
            .iter()
            .map(|l| {
                l.bias()
                    .cloned()
                    .ok_or_else(|| candle_core::Error::Msg("no bias".into()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Layer {
            // Laid out as `transposed` lays out every linear weight, so the product reads it in
            // place.
            query_key_value: Linear::new(
                weight.t()?.contiguous()?.t()?,
                Some(Tensor::cat(&bias, 0)?),
            ),
            attention_output: linear(size, size, attention.pp("output.dense"))?,
            attention_norm: layer_norm(size, eps, attention.pp("output.LayerNorm"))?,
            intermediate: linear(size, config.intermediate_size, at.pp("intermediate.dense"))?,
            output: linear(config.intermediate_size, size, at.pp("output.dense"))?,
            output_norm: layer_norm(size, eps, at.pp("output.LayerNorm"))?,
        })
    }

    fn forward(&self, hidden: &Tensor, lengths: &[usize], heads: usize) -> Result<Tensor> {
        let (rows, width, size) = hidden.dims3()?;
        let head = size / heads;
        // (rows, width, 3 × size) → query, key and value as (rows, heads, width, head).
        let qkv = affine(&self.query_key_value, hidden)?
            .reshape((rows, width, 3, heads, head))?
            .permute((2, 0, 3, 1, 4))?;
        let part = |n: usize| qkv.get(n)?.contiguous();
        let (query, key, value) = (part(0)?, part(1)?, part(2)?);
        let scores = query.matmul(&key.t()?)?;
        scores.inplace_op1(&MaskedSoftmax {
            lengths,
            scale: (1.0 / (head as f64).sqrt()) as f32,
        })?;
        let context = scores
            .matmul(&value)?
            .transpose(1, 2)?
            .reshape((rows, width, size))?;
        let attended = affine(&self.attention_output, &context)?;
        attended.inplace_op2(hidden, &AddRepeated)?;
        let attended = self.attention_norm.forward(&attended)?;
        let intermediate = affine(&self.intermediate, &attended)?;
        intermediate.inplace_op1(&Gelu)?;
        let output = affine(&self.output, &intermediate)?;
        output.inplace_op2(&attended, &AddRepeated)?;
        self.output_norm.forward(&output)
    }
}

/// `x wᵀ + b` for `x` of `(rows, width, in)`: candle's product, then the bias added in place
/// (candle's `Linear` adds it into a new tensor).
fn affine(linear: &Linear, x: &Tensor) -> Result<Tensor> {
    let (rows, width, size) = x.dims3()?;
    let out = x
        .reshape((rows * width, size))?
        .matmul(&linear.weight().t()?)?;
    if let Some(bias) = linear.bias() {
        out.inplace_op2(bias, &AddRepeated)?;
    }
    out.reshape((rows, width, ()))
}

/// A tensor added in place to each run of its length ([`add_repeated`]): a bias or a residual.
struct AddRepeated;

impl InplaceOp2 for AddRepeated {
    fn name(&self) -> &'static str {
        "add-repeated"
    }

    fn cpu_fwd(
        &self,
        values: &mut CpuStorage,
        layout: &Layout,
        addend: &CpuStorage,
        addend_layout: &Layout,
    ) -> Result<()> {
        let values = contiguous_f32(values, layout, self.name())?;
        let Some((start, end)) = addend_layout.contiguous_offsets() else {
            candle_core::bail!("{}: the addend is not contiguous", self.name());
        };
        let addend = &addend.as_slice::<f32>()?[start..end];
        if addend.is_empty() || !values.len().is_multiple_of(addend.len()) {
            candle_core::bail!(
                "{}: {} values, {} to add",
                self.name(),
                values.len(),
                addend.len()
            );
        }
        add_repeated(values, addend);
        Ok(())
    }
}

/// GELU ([`gelu_in_place`]), in place.
struct Gelu;

impl InplaceOp1 for Gelu {
    fn name(&self) -> &'static str {
        "gelu-erf-vectorised"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        gelu_in_place(contiguous_f32(storage, layout, self.name())?);
        Ok(())
    }
}

/// The softmax of each row of attention scores `(rows, heads, width, width)`, scaled first and
/// masked to the row's length, in place ([`masked_softmax_in_place`]).
struct MaskedSoftmax<'a> {
    lengths: &'a [usize],
    scale: f32,
}

impl InplaceOp1 for MaskedSoftmax<'_> {
    fn name(&self) -> &'static str {
        "masked-softmax"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let (rows, _, width, last) = layout.shape().dims4()?;
        if width != last || rows != self.lengths.len() {
            candle_core::bail!("attention scores {:?} for {} rows", layout.shape(), rows);
        }
        let values = contiguous_f32(storage, layout, self.name())?;
        masked_softmax_in_place(values, width, self.lengths, self.scale);
        Ok(())
    }
}

/// `storage`'s values in `layout`, which must be contiguous f32.
fn contiguous_f32<'s>(
    storage: &'s mut CpuStorage,
    layout: &Layout,
    op: &str,
) -> Result<&'s mut [f32]> {
    let (Some((start, end)), CpuStorage::F32(values)) = (layout.contiguous_offsets(), storage)
    else {
        candle_core::bail!("{op}: the input is not contiguous f32");
    };
    Ok(&mut values[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::dense::transposed;
    use candle_core::{DType, Device};
    use candle_transformers::models::bert::BertModel;

    /// A small BERT's configuration: two layers of four heads.
    fn config() -> Config {
        Config {
            vocab_size: 50,
            hidden_size: 16,
            num_hidden_layers: 2,
            num_attention_heads: 4,
            intermediate_size: 32,
            max_position_embeddings: 20,
            type_vocab_size: 2,
            ..Config::default()
        }
    }

    /// Its weights as a safetensors file, every value fixed but scattered over [-0.5, 0.5).
    fn weights() -> Vec<u8> {
        let mut shapes: Vec<(String, Vec<usize>)> = vec![
            ("embeddings.word_embeddings.weight".into(), vec![50, 16]),
            ("embeddings.position_embeddings.weight".into(), vec![20, 16]),
            (
                "embeddings.token_type_embeddings.weight".into(),
                vec![2, 16],
            ),
            ("embeddings.LayerNorm.weight".into(), vec![16]),
            ("embeddings.LayerNorm.bias".into(), vec![16]),
        ];
        for n in 0..2 {
            let at = format!("encoder.layer.{n}");
            for (name, rows, columns) in [
                ("attention.self.query", 16, 16),
                ("attention.self.key", 16, 16),
                ("attention.self.value", 16, 16),
                ("attention.output.dense", 16, 16),
                ("intermediate.dense", 32, 16),
                ("output.dense", 16, 32),
            ] {
                shapes.push((format!("{at}.{name}.weight"), vec![rows, columns]));
                shapes.push((format!("{at}.{name}.bias"), vec![rows]));
            }
            for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
                shapes.push((format!("{at}.{norm}.weight"), vec![16]));
                shapes.push((format!("{at}.{norm}.bias"), vec![16]));
            }
        }
        let mut random = rand_mt::Mt::new(7);
        let tensors: Vec<(String, Tensor)> = shapes
            .into_iter()
            .map(|(name, shape)| {
                let count: usize = shape.iter().product();
                let values: Vec<f32> = (0..count)
                    .map(|_| (random.next_u32() >> 8) as f32 / (1u32 << 24) as f32 - 0.5)
                    .collect();
                (name, Tensor::from_vec(values, shape, &Device::Cpu).unwrap())
            })
            .collect();
        safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), None).unwrap()
    }

    #[test]
    fn the_hidden_states_are_candle_transformers_bert_models_where_not_padding() {
        let (config, bytes) = (config(), weights());
        let builder = || transposed::var_builder(&bytes, DType::F32).unwrap();
        let ours = Encoder::load(builder(), &config).unwrap();
        let theirs = BertModel::load(builder(), &config).unwrap();
        // Three rows of 7, 4 and 1 pieces, padded to 7; the first row's types are 0 then 1.
        let lengths = [7usize, 4, 1];
        let ids: Vec<u32> = [
            [2, 17, 33, 5, 49, 8, 3],
            [2, 40, 11, 3, 0, 0, 0],
            [2, 0, 0, 0, 0, 0, 0],
        ]
        .concat();
        let types: Vec<u32> = [[0, 0, 0, 1, 1, 1, 1], [0; 7], [0; 7]].concat();
        let mask: Vec<u32> = lengths
            .iter()
            .flat_map(|&n| (0..7).map(move |at| u32::from(at < n)))
            .collect();
        let tensor = |v: Vec<u32>| Tensor::from_vec(v, (3, 7), &Device::Cpu).unwrap();
        let got = ours
            .forward(&tensor(ids.clone()), &tensor(types.clone()), &lengths)
            .unwrap()
            .to_vec3::<f32>()
            .unwrap();
        let expected = theirs
            .forward(&tensor(ids), &tensor(types), Some(&tensor(mask)))
            .unwrap()
            .to_vec3::<f32>()
            .unwrap();
        for (row, &length) in lengths.iter().enumerate() {
            for at in 0..length {
                for (g, e) in got[row][at].iter().zip(&expected[row][at]) {
                    assert!(
                        (g - e).abs() < 2e-5,
                        "row {row} piece {at}: {g} against {e}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_activation_other_than_exact_gelu_is_refused() {
        let bytes = weights();
        let config = Config {
            hidden_act: HiddenAct::GeluApproximate,
            ..config()
        };
        let builder = transposed::var_builder(&bytes, DType::F32).unwrap();
        let message = Encoder::load(builder, &config).err().unwrap().to_string();
        assert!(message.contains("hidden_act"), "{message}");
    }
}
