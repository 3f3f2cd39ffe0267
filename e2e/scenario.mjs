// The data of the scenario: the file the agent edits, the scripted model's
// tool calls, and the text the file should hold after each step.

export const fileName = 'greet.txt';

const names = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Dennis', 'Frances',
  'John', 'Radia', 'Tony', 'Niklaus', 'Leslie', 'Shafi', 'Butler', 'Fran', 'Robin', 'Adele',
  'Bjarne', 'Guido', 'Rob', 'Sophie', 'Tim', 'Katherine', 'Linus', 'Hedy', 'Claude', 'Jean',
  'Ivan', 'Hal', 'Juris', 'Mary', 'Peter', 'Edith', 'Brian', 'Lynn', 'Alonzo', 'Kristen'];

/** Forty lines, one greeting each, LF endings, a final newline. */
export const original = names.map((n, i) => `${String(i + 1).padStart(2, '0')}: Hello, ${n}!\n`).join('');

// Three edits far enough apart (lines 3, 20 and 37) to make three hunks.
const edits = [
  { old_string: '03: Hello, Grace!\n', new_string: '03: Good morning, Grace!\n' },
  { old_string: '20: Hello, Adele!\n', new_string: '20: Good afternoon, Adele!\n' },
  { old_string: '37: Hello, Brian!\n', new_string: '37: Good evening, Brian!\n' },
];

/** One hunk per edit: the review's lenses count them. */
export const hunkCount = edits.length;

/** The hunk the test drops in the review, 1-based as the lenses count. */
export const droppedHunk = 2;

/** What the file holds once the other hunks are approved. */
export const approved = edits.reduce((text, e, i) => (i + 1 === droppedHunk ? text : text.replace(e.old_string, e.new_string)), original);

/** The lines that tell the kept hunks from the dropped one. */
export const keptLines = edits.filter((_, i) => i + 1 !== droppedHunk).map((e) => e.new_string.trim());
export const droppedLine = edits[droppedHunk - 1].new_string.trim();

/** What the scripted model does, read by the test agent extension. */
export const script = {
  steps: [
    { tool: 'tether_read_file', input: { path: fileName } },
    { tool: 'tether_multi_edit', input: { path: fileName, edits } },
  ],
  reply: 'E2E_AGENT_DONE greet.txt has new greetings.',
};

export const prompt = '@tethertest Make the greetings in greet.txt fit the time of day.';
