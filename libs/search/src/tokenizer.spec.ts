import { stem, tokenize } from './tokenizer.js';

describe('tokenize', () => {
  it('lowercases and splits on anything that is not a letter or digit', () => {
    expect(tokenize('Runs a SPICE transient, (netlist) 2x!')).toEqual(['run', 'spice', 'transient', 'netlist', '2x']);
  });

  it('splits snake_case names into their parts and keeps the whole name too', () => {
    expect(tokenize('check_memory_budget')).toEqual(['check', 'memory', 'budget', 'check_memory_budget']);
  });

  it('treats tool ids and hyphenated words like snake_case', () => {
    expect(tokenize('calculix.run_fea pure-logic')).toEqual(['calculix', 'run', 'fea', 'calculix.run_fea', 'pure', 'logic', 'pure-logic']);
  });

  it('does not glue a sentence-ending period to the word', () => {
    expect(tokenize('within limits. Next')).toEqual(['within', 'limit', 'next']);
  });

  it('drops stopwords but keeps them inside a whole joined name', () => {
    expect(tokenize('the margin of safety')).toEqual(['margin', 'safety']);
    expect(tokenize('state_of_charge')).toEqual(['state', 'charge', 'state_of_charge']);
  });

  it('keeps letters outside ASCII', () => {
    expect(tokenize('Spannungsprüfung µC')).toEqual(['spannungsprüfung', 'µc']);
  });

  it('returns nothing for text without words', () => {
    expect(tokenize('  --- !! ')).toEqual([]);
  });
});

describe('stem', () => {
  it.each([
    ['checks', 'check'],
    ['stresses', 'stress'],
    ['meshes', 'mesh'],
    ['matches', 'match'],
    ['assemblies', 'assembly'],
    ['databases', 'database'],
    ['results', 'result'],
    ['stress', 'stress'],
    ['analysis', 'analysis'],
    ['status', 'status'],
    ['bus', 'bus'],
    ['gas', 'gas'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});
