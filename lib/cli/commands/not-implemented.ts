// A command that exists in the interface but whose service has not been built yet: it says so and
// fails, rather than pretending to work.
import { type Command } from '../command.js';

export function notYetImplemented(name: string): Command {
  return {
    name,
    usage: `Usage: flowagg ${name}\n\nThis command is not implemented yet in this version of flowagg.\n`,
    options: {},
    positionals: true,
    run: async () => {
      process.stderr.write(`flowagg ${name}: not implemented yet\n`);
      return 1;
    },
  };
}
