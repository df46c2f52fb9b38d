// @marcbachmann/cel-js is an ES module only: Jest's loader cannot read it, Node's own require can (20.19+).
// It runs in Node's realm, where an object of Jest's realm is no plain object: hand it values made
// there (celValue, a JSON copy parsed in Node's realm).
module.exports = process.getBuiltinModule('node:module').createRequire(__filename)('./cel-js-realm.cjs');
