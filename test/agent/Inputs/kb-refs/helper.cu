// Not an operator's name: left out with a note.
