"""The terminal side of ``recipekg shell``: a prompt_toolkit prompt with TAB completion from
the KB's vocabulary (:mod:`recipekg.cli.completion`), multi-line input where Enter answers a
statement that parses completely (:func:`recipekg.cli.completion.is_complete`) and continues
one that is not finished, ``;`` and a blank line ending one as in a file, Alt-Enter (Esc then
Enter) always starting a new line; and a history file. Only ``recipekg shell`` imports
this module, so nothing else pays for prompt_toolkit.

    >>> completer = StatementCompleter(Vocabulary(snap))
    >>> from prompt_toolkit.document import Document
    >>> [c.text for c in completer.get_completions(Document("recommend opt"), None)]
    ['optimizer']
"""

from __future__ import annotations

import sys
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings

from recipekg.cli.completion import Vocabulary, complete, is_complete

PROMPT, CONTINUATION = "rkg> ", "...> "


class StatementCompleter(Completer):
    """Completes the word before the cursor from what the statement so far allows."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        if text.lstrip().startswith("."):
            return
        found = complete(text, self.vocab)
        for word in found.words:
            yield Completion(word, start_position=found.start)


def _bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event):
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.current_completion is not None:
            buffer.apply_completion(state.current_completion)  # Enter picks from the menu
        elif buffer.document.is_cursor_at_the_end and is_complete(buffer.text):
            buffer.validate_and_handle()
        else:
            buffer.insert_text("\n")

    @bindings.add("escape", "enter")
    def _newline(event):  # Alt-Enter: go on on the next line, even after a complete statement
        event.current_buffer.insert_text("\n")

    return bindings


def interact(session, history: Path, show) -> int:
    """Prompt, answer, repeat until ``.quit`` or Ctrl-D; Ctrl-C drops the input being typed.
    Errors are shown and the prompt comes back; the exit status is 0."""
    history.parent.mkdir(parents=True, exist_ok=True)
    prompt = PromptSession(PROMPT, multiline=True, key_bindings=_bindings(), history=FileHistory(str(history)),
                           completer=StatementCompleter(Vocabulary(session.kb.snap)),
                           prompt_continuation=CONTINUATION, complete_while_typing=False)
    while not session.done:
        try:
            text = prompt.prompt()
        except KeyboardInterrupt:
            continue
        except EOFError:
            break
        try:
            show(session.run(text))
        except KeyboardInterrupt:  # Ctrl-C while answering: drop this answer, keep the shell
            print("interrupted", file=sys.stderr, flush=True)
    return 0
