// webpack.config.js: bundles the JupyterLab application (app.js, the @jupyterlab/* plugins, the wordlab extension in src/) into $WL_LAB_OUT.
// Build.ensureAssets copies every plugin's settings schemas to $WL_LAB_OUT/schemas, writes the CSS imports
// to $WL_LAB_OUT/style.js and returns one extra configuration per theme (CSS in $WL_LAB_OUT/themes).
const path = require('path');
const { merge } = require('webpack-merge');
const webpack = require('webpack');
const { Build } = require('@jupyterlab/builder');
const baseConfig = require('@jupyterlab/builder/lib/webpack.config.base');
const pkg = require('./package.json');

const out = process.env.WL_LAB_OUT;
if (!out || !path.isAbsolute(out)) throw new Error('WL_LAB_OUT must name the output directory (an absolute path)');

// The packages that carry JupyterLab metadata (plugins, schemas, themes, styles): every @jupyterlab dependency that has it.
const labPackages = Object.keys(pkg.dependencies).filter(
  (name) => require(path.join(name, 'package.json')).jupyterlab !== undefined);
const themeConfigs = Build.ensureAssets({ packageNames: labPackages, output: out });

const app = merge(baseConfig, {
  mode: 'production',
  entry: { main: path.join(__dirname, 'app.js') },
  output: {
    path: path.join(out, 'static'),
    filename: '[name].js',
    chunkFilename: '[name].[contenthash].js',
    hashFunction: 'sha256',
    clean: true,
  },
  // Minifying the 20 MB of JupyterLab costs minutes on a small machine for a page served on localhost.
  optimization: { minimize: false, moduleIds: 'deterministic' },
  devtool: false,
  performance: { hints: false },
  resolve: {
    extensions: ['.ts', '.js'],
    // style.js, written into the output directory, imports from this directory's node_modules.
    modules: [path.join(__dirname, 'node_modules'), 'node_modules'],
    alias: { 'wordlab-lab-style$': path.join(out, 'style.js') },
  },
  module: {
    rules: [
      { test: /\.ts$/, use: { loader: 'ts-loader', options: { configFile: path.join(__dirname, 'tsconfig.json') } } },
      { test: /\.svg$/, issuer: /\.ts$/, type: 'asset/source' },
    ],
  },
  plugins: [new webpack.ProvidePlugin({ process: 'process/browser' })],
});

module.exports = [app, ...themeConfigs];
