//! `routelens embed --format json`: the model's name and pinned hashes, one unit vector of 384
//! numbers per text, in input order (a text's vector does not depend on its neighbours: batches
//! are padded and masked).

use std::process::Command;

use serde_json::Value;

fn embed(args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_routelens"))
        .arg("embed")
        .args(args)
        .output()
        .expect("routelens runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn vectors(value: &Value) -> Vec<Vec<f64>> {
    value["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn json_names_the_model_and_gives_unit_vectors_in_input_order() {
    let both = embed(&[
        "--text",
        "parse a float",
        "--text",
        "a much longer text about escaping strings in JSON output",
    ]);
    assert_eq!(
        both["model"]["name"],
        "sentence-transformers/all-MiniLM-L6-v2"
    );
    assert_eq!(
        both["model"]["sha256"]["model.safetensors"],
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    );
    let both = vectors(&both);
    assert_eq!(both.len(), 2);
    for vector in &both {
        assert_eq!(vector.len(), 384);
        let norm: f64 = vector.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
    }
    let alone = vectors(&embed(&["--text", "parse a float"]));
    let off = alone[0]
        .iter()
        .zip(&both[0])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(
        off < 1e-5,
        "a text's vector moved by {off} when embedded beside a longer one"
    );
}
