// @apidevtools/swagger-parser 13 loads json-schema-ref-parser, an ES module: through Node's own
// require (20.19+), as kubernetes-client-node.js does.
module.exports = process.getBuiltinModule('node:module').createRequire(__filename)('@apidevtools/swagger-parser');
