package frames

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxStageLen bounds a HANDOFF stage name.
const maxStageLen = 256

// parseFrame turns a closed frame, <<<PREFIX:TYPE:payload>>>, into an Event.
func parseFrame(buf []byte) (Event, error) {
	body := buf[startLen : len(buf)-len(">>>")]
	typ, payload, ok := bytes.Cut(body, []byte(":"))
	if !ok {
		return Event{}, fmt.Errorf("the %s frame has no payload (write <<<OPTR:%s:…>>>)", typ, typ)
	}
	payload = bytes.TrimSpace(payload)
	e := Event{
		Type:    Type(typ),
		Prefix:  string(buf[3 : startLen-1]),
		Payload: strings.ToValidUTF8(string(payload), "\uFFFD"),
		Raw:     string(buf),
	}
	var err error
	switch e.Type {
	case Ready:
		err = parseReady(payload, &e)
	case Handoff:
		err = parseHandoff(payload, &e)
	case Error:
		err = parseError(payload, &e)
	case Result:
		err = parseResult(payload, &e)
	default:
		err = fmt.Errorf("unknown frame type %q (known: READY, HANDOFF, ERROR, RESULT)", e.Type)
	}
	return e, err
}

// decodeObject decodes a JSON object payload into v.
func decodeObject(typ Type, payload []byte, v any) error {
	if len(payload) == 0 || payload[0] != '{' {
		return fmt.Errorf("the %s payload must be a JSON object", typ)
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("the %s payload is not valid JSON: %w", typ, err)
	}
	return nil
}

func parseReady(payload []byte, e *Event) error {
	if len(payload) > 0 && payload[0] != '{' {
		// The seed's short form: <<<ODEI:READY:<stage>>>>.
		stage, err := parseStage(Ready, payload)
		e.Stage = stage
		return err
	}
	var v struct {
		Stage string `json:"stage"`
		TS    string `json:"ts"`
	}
	if err := decodeObject(Ready, payload, &v); err != nil {
		return err
	}
	e.Stage, e.TS = v.Stage, v.TS
	return nil
}

func parseHandoff(payload []byte, e *Event) error {
	stage, err := parseStage(Handoff, payload)
	e.Stage = stage
	return err
}

// parseStage checks a stage name: one word of printable characters.
func parseStage(typ Type, payload []byte) (string, error) {
	stage := string(payload)
	switch {
	case stage == "":
		return "", fmt.Errorf("the %s frame names no stage (write <<<OPTR:%s:<stage>>>>)", typ, typ)
	case len(stage) > maxStageLen:
		return "", fmt.Errorf("the %s stage is longer than %d bytes", typ, maxStageLen)
	case !utf8.ValidString(stage):
		return "", fmt.Errorf("the %s stage is not valid UTF-8", typ)
	case strings.IndexFunc(stage, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return "", fmt.Errorf("the %s stage %q contains white space or control characters", typ, stage)
	}
	return stage, nil
}

func parseError(payload []byte, e *Event) error {
	if len(payload) > 0 && payload[0] != '{' {
		// The seed's short form: <<<ODEI:ERROR:<message>>>>.
		e.Message = e.Payload
		return nil
	}
	var v struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := decodeObject(Error, payload, &v); err != nil {
		return err
	}
	if v.Code == "" && v.Message == "" {
		return errors.New(`the ERROR payload has neither "code" nor "message"`)
	}
	e.Code, e.Message = v.Code, v.Message
	return nil
}

// maxTTVms is the largest ttv_ms accepted, well inside a time.Duration
// (which ends near 9.2e12 ms).
const maxTTVms = 9e12

func parseResult(payload []byte, e *Event) error {
	var v struct {
		TTV *float64 `json:"ttv_ms"`
	}
	if err := decodeObject(Result, payload, &v); err != nil {
		return err
	}
	switch {
	case v.TTV == nil:
		return errors.New(`the RESULT payload has no number "ttv_ms"`)
	case *v.TTV < 0 || *v.TTV > maxTTVms:
		return fmt.Errorf(`the RESULT "ttv_ms" %v is out of range`, *v.TTV)
	}
	e.TTV = time.Duration(*v.TTV * float64(time.Millisecond))
	return nil
}
