import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'data/', 'src/demo/artifacts.ts', 'test/fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Leaving members out of an object by destructuring the rest is how a copy without them is made.
    rules: { '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
  {
    // Node 20's V8 allocates an object literal that starts with a spread and goes on ({ ...row,
    // blockNumber }) in the old generation, where it is garbage that only a full collection frees: one
    // such literal per item made E2's deep page promote 100 KB a request, and a full collection came
    // every hundred requests (bench/README.md, "Garbage promoted per request"). Object.assign onto a
    // fresh object or onto {}, or a literal that spreads last, makes the same object in the young
    // generation. Schemas, built once, may spread their members.
    files: ['src/**/*.ts'],
    ignores: ['src/demo/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement:first-child:not([argument.property.name="properties"]) + *',
          message:
            'A literal that spreads first and goes on is allocated in the old generation: write Object.assign(fresh, { ... }), Object.assign({}, base, { ... }), or spread last (see eslint.config.js).',
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    // Tests read the API's JSON answers, whose shape they assert.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
