// Jest's module loader cannot load an ES module from CommonJS; Node's own require can (20.19+).
// process.getBuiltinModule reaches Node's loader past Jest's, which would map this name back here.
module.exports = process.getBuiltinModule('node:module').createRequire(__filename)('@kubernetes/client-node');
