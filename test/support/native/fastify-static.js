// @fastify/static 10 requires content-disposition 2, an ES module: Jest's loader cannot read it,
// Node's own require can (20.19+). process.getBuiltinModule reaches Node's loader past Jest's.
module.exports = process.getBuiltinModule('node:module').createRequire(__filename)('@fastify/static');
