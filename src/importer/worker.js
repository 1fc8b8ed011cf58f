// The importer worker (src/importer.rs starts it, importer/worker.js of the
// site): loads the wasm Trunk built beside it (src/bin/vramfit-importer.rs,
// wasm-bindgen's no-modules output) and answers each message [kind, text]
// with the wasm's answer, in order; with null when the wasm cannot load.
importScripts("./vramfit-importer.js");
const ready = wasm_bindgen({ module_or_path: "./vramfit-importer_bg.wasm" });
onmessage = (event) => {
  ready.then(
    () => postMessage(wasm_bindgen.answer(event.data[0], event.data[1])),
    () => postMessage(null),
  );
};
