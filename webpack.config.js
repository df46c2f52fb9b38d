/**
 * One bundle an entry point, flat under dist/ (dist/api/main.js, dist/watcher/main.js, dist/cli.js);
 * packages from node_modules stay outside the bundles and are required at run time.
 * ts-loader only transpiles: `npm run typecheck` and the tests type-check.
 */
const path = require('node:path');
const { BannerPlugin } = require('webpack');
const nodeExternals = require('webpack-node-externals');
const { TsconfigPathsPlugin } = require('tsconfig-paths-webpack-plugin');

module.exports = {
  mode: 'none',
  target: 'node20',
  entry: {
    'api/main': './apps/api/src/main.ts',
    'watcher/main': './apps/watcher/src/main.ts',
    cli: './apps/api/src/cli-main.ts',
  },
  output: { path: path.join(__dirname, 'dist'), filename: '[name].js', clean: { keep: /^(cni|ui)\// } },
  devtool: 'source-map',
  // the real __dirname of the bundle: the migrations are found upwards from it
  node: { __dirname: false, __filename: false },
  externalsPresets: { node: true },
  externals: [nodeExternals()],
  resolve: { extensions: ['.ts', '.js'], plugins: [new TsconfigPathsPlugin({ configFile: 'tsconfig.json' })] },
  module: {
    rules: [{ test: /\.ts$/, loader: 'ts-loader', exclude: /node_modules/, options: { transpileOnly: true, configFile: 'tsconfig.json' } }],
  },
  plugins: [new BannerPlugin({ banner: '#!/usr/bin/env node', raw: true, entryOnly: true, test: /^cli\.js$/ })],
  optimization: { minimize: false },
  stats: 'errors-warnings',
};
