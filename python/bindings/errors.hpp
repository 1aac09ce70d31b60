#pragma once
// The engine's errors as Python exceptions, with the message the CLI prints after "error: ":
// bad input (an InputError anywhere in the error's nested chain, or a library error caused by
// input: caused_by_input) raises ValueError, or FileNotFoundError when the chain holds a
// MissingFileError; a run stopped without a signal (RunCancelled) KeyboardInterrupt; any other
// failure RuntimeError.
namespace pacflow::python {

void register_error_translation();

}  // namespace pacflow::python
