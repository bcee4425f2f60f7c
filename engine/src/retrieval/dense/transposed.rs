//! A BERT model's weights (the embedder's and the cross-encoder's) as candle is handed them,
//! each linear layer's matrix already transposed in memory. candle's `Linear` multiplies by the
//! weight's transpose; with the weight stored as the file has it (out × in, row-major), gemm
//! copied the whole matrix into its own layout on every product, which for a short text (a typed
//! question: 22 pieces against 1,536 × 384 weights) cost about as much as the arithmetic.
//! Stored in × out, the transpose candle asks for is contiguous and gemm reads it in place. The
//! shapes candle sees are unchanged, and so is every product up to the order of its additions
//! (held to sentence-transformers by `engine/tests/minilm.rs`).

use candle_core::safetensors::SliceSafetensors;
use candle_core::{DType, Device, Result, Shape, Tensor};
use candle_nn::var_builder::SimpleBackend;
use candle_nn::{Init, VarBuilder};

/// A safetensors file whose linear weights are served transposed in memory.
struct TransposedLinears<'a> {
    file: SliceSafetensors<'a>,
}

impl SimpleBackend for TransposedLinears<'_> {
    fn get(&self, s: Shape, name: &str, h: Init, dtype: DType, dev: &Device) -> Result<Tensor> {
        let tensor = SimpleBackend::get(&self.file, s, name, h, dtype, dev)?;
        if is_linear_weight(name, &tensor) {
            // (out, in) whose storage is (in, out): `.t()` in `Linear` is then contiguous.
            return tensor.t()?.contiguous()?.t();
        }
        Ok(tensor)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> Result<Tensor> {
        SimpleBackend::get_unchecked(&self.file, name, dtype, dev)
    }

    fn contains_tensor(&self, name: &str) -> bool {
        SimpleBackend::contains_tensor(&self.file, name)
    }
}

/// A matrix inside the encoder's layers: every one there is a linear layer's (the embedding
/// tables, which are looked up by row, stay as they are).
fn is_linear_weight(name: &str, tensor: &Tensor) -> bool {
    tensor.rank() == 2 && name.contains("encoder.layer.") && name.ends_with(".weight")
}

/// A builder over `weights` (a safetensors file's bytes) with the encoder's linear weights
/// transposed in memory.
pub fn var_builder(weights: &[u8], dtype: DType) -> Result<VarBuilder<'_>> {
    let file = SliceSafetensors::new(weights)?;
    Ok(VarBuilder::from_backend(
        Box::new(TransposedLinears { file }),
        dtype,
        Device::Cpu,
    ))
}

#[cfg(test)]
mod tests {
    use super::var_builder;
    use candle_core::{DType, Device, Tensor};

    /// A linear weight keeps its shape and values and its transpose is contiguous (what gemm
    /// reads in place); an embedding table is served as stored.
    #[test]
    fn linear_weights_are_transposed_in_memory_and_nothing_else_changes() {
        let weight = Tensor::arange(0f32, 6.0, &Device::Cpu)
            .unwrap()
            .reshape((2, 3))
            .unwrap();
        let table = Tensor::arange(0f32, 8.0, &Device::Cpu)
            .unwrap()
            .reshape((4, 2))
            .unwrap();
        let bytes = safetensors::serialize(
            [
                ("encoder.layer.0.intermediate.dense.weight", &weight),
                ("embeddings.word_embeddings.weight", &table),
            ],
            None,
        )
        .unwrap();
        let builder = var_builder(&bytes, DType::F32).unwrap();
        let linear = builder
            .get((2, 3), "encoder.layer.0.intermediate.dense.weight")
            .unwrap();
        assert_eq!(
            linear.to_vec2::<f32>().unwrap(),
            weight.to_vec2::<f32>().unwrap()
        );
        assert!(!linear.is_contiguous() && linear.t().unwrap().is_contiguous());
        let embeddings = builder
            .get((4, 2), "embeddings.word_embeddings.weight")
            .unwrap();
        assert!(embeddings.is_contiguous());
        assert_eq!(
            embeddings.to_vec2::<f32>().unwrap(),
            table.to_vec2::<f32>().unwrap()
        );
        assert!(builder
            .get((3, 2), "encoder.layer.0.intermediate.dense.weight")
            .is_err());
    }
}
