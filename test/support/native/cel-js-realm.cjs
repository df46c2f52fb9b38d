// Loaded by Node's own require (see cel-js.js): JSON.parse here makes values of Node's realm.
module.exports = { ...require('@marcbachmann/cel-js'), celValue: (value) => JSON.parse(JSON.stringify(value)) };
