import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Colors } from '../util/colors';

export type InterruptChoice = 'cancel' | 'detach' | 'continue';

/**
 * The question asked on Ctrl-C while a job is followed: cancel the job, detach (it goes on), or
 * keep watching. Reads one line from stdin (a terminal or a pipe). Stdin at its end, or a second
 * Ctrl-C on a terminal, means detach: nothing is lost, the job goes on.
 */
export class InterruptPrompt {
  private rl: Interface | null = null;

  constructor(
    private readonly stdin: Readable & { isTTY?: boolean },
    private readonly stderr: Writable & { isTTY?: boolean },
    private readonly colors: Colors,
  ) {}

  ask(jobId: string, what: string): Promise<InterruptChoice> {
    const question = `\n${this.colors.bold('Interrupted.')} ${what} ${jobId} is still running on the service.\n  [c] cancel it   [d] detach (it goes on; gleaner jobs watch ${jobId})   [w] keep watching\nChoice [c/d/W]: `;
    return new Promise<InterruptChoice>((resolve) => {
      let settled = false;
      const settle = (choice: InterruptChoice) => {
        if (settled) return;
        settled = true;
        this.close();
        resolve(choice);
      };
      const rl = createInterface({ input: this.stdin, output: this.stderr, terminal: !!(this.stdin.isTTY && this.stderr.isTTY) });
      this.rl = rl;
      rl.on('close', () => settle('detach'));
      rl.on('SIGINT', () => settle('detach'));
      const askOnce = (text: string) =>
        rl.question(text, (answer) => {
          const a = answer.trim().toLowerCase();
          if (a === '' || a === 'w' || a === 'watch' || a === 'k') settle('continue');
          else if (a === 'c' || a === 'cancel' || a === 'y' || a === 'yes') settle('cancel');
          else if (a === 'd' || a === 'detach') settle('detach');
          else askOnce('Please answer c, d or w: ');
        });
      askOnce(question);
    });
  }

  close(): void {
    const rl = this.rl;
    this.rl = null;
    rl?.close();
  }
}
