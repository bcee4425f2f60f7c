// Starts the labelling round's module. The app's main (app/src/rounds.rs) adds this script after
// routelens-rounds.js, whose no-modules glue declares `wasm_bindgen` as a global binding that a
// later classic script can see (it is not a property of `window`). A failure is said on the page.
wasm_bindgen({ module_or_path: 'routelens-rounds_bg.wasm' }).catch((error) => {
  const line = document.getElementById('rounds-loading');
  if (line) line.textContent = `the labelling pages could not start: routelens-rounds_bg.wasm: ${error}`;
});
