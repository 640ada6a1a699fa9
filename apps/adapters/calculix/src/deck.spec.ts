import { describe, expect, it } from '@jest/globals';
import { scanDeck, withOutputRequests } from './deck.js';

const DECK = `*NODE, NSET=NALL
1, 0, 0, 0
2, 1, 0, 0
** a comment line
*ELEMENT, TYPE=C3D8, ELSET=A
1, 1, 2, 3, 4, 5, 6, 7, 8
2, 1, 2, 3, 4,
5, 6, 7, 8
*ELEMENT, TYPE=C3D4, ELSET=B
3, 1, 2, 3, 4
*ELSET, ELSET=RANGE, GENERATE
1, 3, 2
*ELSET, ELSET=BOTH
A, b
*NSET, NSET=FIXED
1
*STEP
*STATIC
*NODE FILE, FREQUENCY=5
U, RF
*END STEP
*STEP
*HEAT TRANSFER, STEADY STATE
*END STEP
`;

describe('scanDeck', () => {
  it('collects element and node sets (GENERATE, references, continuation lines), types and procedures', () => {
    const deck = scanDeck(DECK, new Map());
    expect([...deck.elementSets.get('A')!]).toEqual([1, 2]);
    expect([...deck.elementSets.get('RANGE')!]).toEqual([1, 3]);
    expect([...deck.elementSets.get('BOTH')!].sort()).toEqual([1, 2, 3]);
    expect([...deck.nodeSets.get('NALL')!]).toEqual([1, 2]);
    expect(Object.fromEntries(deck.elementTypes)).toEqual({ C3D8: 2, C3D4: 1 });
    expect(deck.steps.map((step) => step.procedure)).toEqual(['STATIC', 'HEAT TRANSFER']);
    expect(deck.steps[1].parameters.has('STEADY STATE')).toBe(true);
  });

  it('follows *INCLUDE into given files and refuses others', () => {
    const deck = scanDeck(
      '*INCLUDE, INPUT=mesh/part.inp\n*STEP\n*STATIC\n*END STEP\n',
      new Map([['mesh/part.inp', '*ELSET, ELSET=P\n7\n']]),
    );
    expect([...deck.elementSets.get('P')!]).toEqual([7]);
    expect(() => scanDeck('*INCLUDE, INPUT=/etc/passwd\n', new Map())).toThrow('is an absolute path');
    expect(() => scanDeck('*INCLUDE, INPUT=other.inp\n', new Map())).toThrow("reads 'other.inp', which is not among 'include_files'");
    expect(() => scanDeck('*ELSET, ELSET=X\nNOPE\n', new Map())).toThrow('element set X refers to NOPE');
  });
});

describe('withOutputRequests', () => {
  it('adds only the requests a step does not make itself', () => {
    const out = withOutputRequests(DECK, [
      { keyword: 'NODE FILE', variable: 'U' },
      { keyword: 'EL FILE', variable: 'S' },
    ]);
    const [first, second] = out.split('*END STEP').map((part) => part.split('\n').filter(Boolean));
    expect(first.slice(-4)).toEqual(['*NODE FILE, FREQUENCY=5', 'U, RF', '*EL FILE', 'S']); // U already requested
    expect(second.slice(-4)).toEqual(['*NODE FILE', 'U', '*EL FILE', 'S']);
  });

  it('refuses a deck without a step', () => {
    expect(() => withOutputRequests('*NODE\n1, 0, 0, 0\n', [{ keyword: 'NODE FILE', variable: 'NT' }])).toThrow(
      'no *STEP ... *END STEP block',
    );
  });
});
