// Package frames reads the control protocol of command agents (architecture §4.5)
// out of their stdout while it streams.
//
// Two kinds of signal are recognised:
//
//   - Control frames, anywhere in the stream, split across reads or not:
//     <<<OPTR:READY:{"stage":"…","ts":"…"}>>>, <<<OPTR:HANDOFF:<stage>>>>,
//     <<<OPTR:ERROR:{"code":"…","message":"…"}>>> and
//     <<<OPTR:RESULT:{"ttv_ms":…}>>>. The seed's prefix ODEI is accepted in
//     place of OPTR. Frames are removed from the output and reported as events;
//     a frame (or a run of frames) alone on its line takes the line end with
//     it, so that it leaves no empty line behind.
//
//   - Line signals, a whole line of the output beginning at its first column:
//     REPORT_CREATED: <path>, TASK_ERROR: <type> - <message> and
//     ERROR_CONTEXT: <json>. They are ordinary lines, so they stay in the
//     output, and they are also reported as events. Lines are those of the
//     output with frames already removed.
//
// The rules for text that is not a clean frame:
//
//   - <<<OPTR: and <<<ODEI: are reserved. Once one is seen, what follows is a
//     frame. A frame that turns out malformed (a type that is not upper-case
//     letters, an unknown type, a payload that does not parse, a HANDOFF not
//     closed on its line, more than [Options.MaxFrame] bytes without >>>, a
//     new frame starting inside it, or the end of the stream) is reported to
//     [Options.OnMalformed] and dropped: its text never reaches the output.
//     Nothing is ever fatal. After a frame that overran MaxFrame the rest is
//     read as ordinary text again; so is the rest of a would-be frame whose
//     type breaks the rule (<<<OPTR: then "see below" drops only "<<<OPTR:").
//   - Anything else, including <<< followed by other text, is ordinary output.
//   - A payload that starts with '{' is JSON and may contain >>> inside its
//     strings; the frame ends at the first >>> outside a string. Any other
//     payload ends at the first >>>. READY and ERROR also take the seed's
//     short forms, <<<ODEI:READY:<stage>>>> and <<<ODEI:ERROR:<message>>>>;
//     RESULT must be JSON.
//   - Removing a frame never creates one: text on both sides of a removed
//     frame that would join into a frame start (<<<OP + frame + TR:…>>>) is
//     a malformed frame too. The output therefore never contains <<<OPTR: or
//     <<<ODEI:.
//
// The [Parser] is an [io.Writer]: feed it stdout as it arrives, in chunks
// of any size, and [Parser.Close] it at the end of the stream. However the
// stream is split, the output, the events and the malformed reports are the
// same. Memory is bounded by [Options.MaxFrame] and [Options.MaxLine],
// whatever the input.
package frames
