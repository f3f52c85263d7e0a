// Runs the Khronos glTF-Validator (npm package gltf-validator) on one .gltf/.glb file and prints
// its counts as one JSON line, then every error with its JSON pointer. Exit status: 0 when the
// validator ran (whatever it found), 2 when it could not run. Used by tests/gltf_validator_test.cpp.
// Usage: NODE_PATH=<dir>/node_modules node validate_gltf.js <file>
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

const file = process.argv[2];
if (!file) {
  console.error('usage: node validate_gltf.js <file.gltf|file.glb>');
  process.exit(2);
}
let bytes;
try {
  bytes = new Uint8Array(fs.readFileSync(file));
} catch (error) {
  console.error(`cannot read ${file}: ${error.message}`);
  process.exit(2);
}
validator
  .validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(path.dirname(file), decodeURIComponent(uri)), (err, data) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
  })
  .then((report) => {
    const issues = report.issues;
    console.log(JSON.stringify({numErrors: issues.numErrors, numWarnings: issues.numWarnings,
                                numInfos: issues.numInfos, numHints: issues.numHints}));
    for (const message of issues.messages)
      if (message.severity === 0) console.log(`${message.code} ${message.pointer || ''}: ${message.message}`);
  })
  .catch((error) => {
    console.error(`validator failed: ${error}`);
    process.exit(2);
  });
