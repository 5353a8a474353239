package cost

import "github.com/optr-dev/optr/internal/provider"

// PricesChecked is the day the built-in table was last checked against
// the providers' published prices. README's "What the agents cost" says how
// to update the table; a config's prices: overrides any line of it.
const PricesChecked = "2026-11-25"

// Builtin is the built-in price table, by provider (the registry's names):
// US dollars per million tokens, each
// provider's list price for standard (not batch, flex or priority)
// processing of a prompt below the long-context threshold. Cache reads and
// writes are priced as ordinary input: the figures are what a call costs
// without prompt caching, an upper bound when a provider discounts a cache
// hit. Sources, as read on PricesChecked:
//
//   - OpenAI: https://developers.openai.com/api/docs/pricing and each
//     model's page (gpt-6.1-terra from 2026-10-26; GPT-5.6 Terra and Luna
//     as cut on 2026-07-30; GPT-5.6 Sol at its list price — OpenAI
//     announced $4/$20 as a promotion through at least 2026-11-21).
//   - Azure OpenAI: priced by the deployment's model at OpenAI's rates,
//     which are Azure's Global Standard rates for these models; a Data
//     Zone or regional deployment costs more — set prices: for it.
//   - Anthropic: https://platform.claude.com/docs/en/about-claude/pricing
//     (Claude Haiku 5.5 at its rate for prompts up to 100k tokens).
//   - Gemini API: https://ai.google.dev/gemini-api/docs/pricing (the paid
//     tier's standard rates for prompts up to 200k tokens; text input).
//   - GitHub Copilot: https://docs.github.com/en/copilot/reference/copilot-billing/models-and-pricing
//     (data/tables/copilot/models-and-pricing.yml in github/docs). Since
//     2026-06-01 Copilot bills tokens at these per-model rates in AI
//     Credits (1 credit = $0.01) once a plan's allowance is used; premium
//     requests × model multipliers remain only for annual Pro and Pro+
//     plans that stayed on request-based billing, which prices: can model
//     with request: (see Price). A copilot agent with byok: is priced by
//     its own provider's table: Copilot bills it nothing.
var Builtin = Table{
	provider.OpenAI:      openAI,
	provider.AzureOpenAI: openAI,
	provider.Anthropic:   anthropic,
	provider.Copilot:     copilot,
	provider.Gemini:      gemini,
}

var openAI = map[string]Price{
	"gpt-6.1-terra": {Input: 1.00, Output: 5.00},
	"gpt-6-astra":   {Input: 10.00, Output: 50.00},
	"gpt-6-sol":     {Input: 2.00, Output: 10.00},
	"gpt-6-luna":    {Input: 0.10, Output: 0.50},
	"gpt-5.6-sol":   {Input: 5.00, Output: 30.00},
	"gpt-5.6":       {Input: 5.00, Output: 30.00}, // the alias of gpt-5.6-sol
	"gpt-5.6-terra": {Input: 2.00, Output: 12.00},
	"gpt-5.6-luna":  {Input: 0.20, Output: 1.20},
	"gpt-5.5":       {Input: 5.00, Output: 30.00},
	"gpt-5.5-pro":   {Input: 30.00, Output: 180.00},
	"gpt-5.4":       {Input: 2.50, Output: 15.00},
	"gpt-5.4-mini":  {Input: 0.75, Output: 4.50},
	"gpt-5.4-nano":  {Input: 0.20, Output: 1.25},
	"gpt-5.4-pro":   {Input: 30.00, Output: 180.00},
	"gpt-5.2":       {Input: 1.75, Output: 14.00},
	"gpt-5.1":       {Input: 1.25, Output: 10.00},
	"gpt-5":         {Input: 1.25, Output: 10.00},
	"gpt-5-mini":    {Input: 0.25, Output: 2.00},
	"gpt-5-nano":    {Input: 0.05, Output: 0.40},
	"gpt-4.1":       {Input: 2.00, Output: 8.00},
	"gpt-4.1-mini":  {Input: 0.40, Output: 1.60},
	"gpt-4.1-nano":  {Input: 0.10, Output: 0.40},
	"gpt-4o":        {Input: 2.50, Output: 10.00},
	"gpt-4o-mini":   {Input: 0.15, Output: 0.60},
	"o3":            {Input: 2.00, Output: 8.00},
	"o4-mini":       {Input: 1.10, Output: 4.40},
}

var anthropic = map[string]Price{
	"claude-fable-5-1":  {Input: 10.00, Output: 50.00},
	"claude-mythos-5-1": {Input: 10.00, Output: 50.00},
	"claude-fable-5":    {Input: 10.00, Output: 50.00},
	"claude-mythos-5":   {Input: 10.00, Output: 50.00},
	"claude-opus-5-5":   {Input: 4.00, Output: 20.00},
	"claude-opus-5":     {Input: 5.00, Output: 25.00},
	"claude-opus-4-8":   {Input: 5.00, Output: 25.00},
	"claude-opus-4-7":   {Input: 5.00, Output: 25.00},
	"claude-opus-4-6":   {Input: 5.00, Output: 25.00},
	"claude-opus-4-5":   {Input: 5.00, Output: 25.00},
	"claude-opus-4-1":   {Input: 15.00, Output: 75.00},
	"claude-opus-4-0":   {Input: 15.00, Output: 75.00},
	"claude-sonnet-5-5": {Input: 2.00, Output: 10.00},
	"claude-sonnet-5":   {Input: 2.00, Output: 10.00},
	"claude-sonnet-4-6": {Input: 3.00, Output: 15.00},
	"claude-sonnet-4-5": {Input: 3.00, Output: 15.00},
	"claude-sonnet-4-0": {Input: 3.00, Output: 15.00},
	"claude-haiku-5-5":  {Input: 0.10, Output: 0.50},
	"claude-haiku-4-5":  {Input: 1.00, Output: 5.00},
	"claude-3-5-haiku":  {Input: 0.80, Output: 4.00},
}

var gemini = map[string]Price{
	"gemini-3-pro-preview":  {Input: 2.00, Output: 12.00},
	"gemini-2.5-pro":        {Input: 1.25, Output: 10.00},
	"gemini-2.5-flash":      {Input: 0.30, Output: 2.50},
	"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40},
	"gemini-2.0-flash":      {Input: 0.10, Output: 0.40},
}

// copilot holds GitHub's per-token rates for the models Copilot offers,
// under the ids the Copilot CLI uses.
var copilot = map[string]Price{
	"gpt-5-mini":             {Input: 0.25, Output: 2.00},
	"gpt-5.3-codex":          {Input: 1.75, Output: 14.00},
	"gpt-5.4":                {Input: 2.50, Output: 15.00},
	"gpt-5.4-mini":           {Input: 0.75, Output: 4.50},
	"gpt-5.4-nano":           {Input: 0.20, Output: 1.25},
	"gpt-5.5":                {Input: 5.00, Output: 30.00},
	"gpt-5.6-luna":           {Input: 0.20, Output: 1.20},
	"gpt-5.6-sol":            {Input: 5.00, Output: 30.00},
	"gpt-5.6-terra":          {Input: 2.00, Output: 12.00},
	"claude-haiku-4.5":       {Input: 1.00, Output: 5.00},
	"claude-sonnet-4":        {Input: 3.00, Output: 15.00},
	"claude-sonnet-4.5":      {Input: 3.00, Output: 15.00},
	"claude-sonnet-4.6":      {Input: 3.00, Output: 15.00},
	"claude-sonnet-5":        {Input: 2.00, Output: 10.00},
	"claude-opus-4.5":        {Input: 5.00, Output: 25.00},
	"claude-opus-4.6":        {Input: 5.00, Output: 25.00},
	"claude-opus-4.7":        {Input: 5.00, Output: 25.00},
	"claude-opus-4.8":        {Input: 5.00, Output: 25.00},
	"claude-opus-5":          {Input: 5.00, Output: 25.00},
	"claude-fable-5":         {Input: 10.00, Output: 50.00},
	"gemini-3.1-pro":         {Input: 2.00, Output: 12.00},
	"gemini-3.1-pro-preview": {Input: 2.00, Output: 12.00},
	"gemini-3.5-flash":       {Input: 1.50, Output: 9.00},
	"gemini-3.6-flash":       {Input: 0.75, Output: 3.75},
	"gemini-3.7-flash":       {Input: 0.75, Output: 3.75},
	"grok-4.5":               {Input: 2.00, Output: 6.00},
	"grok-4.6":               {Input: 2.00, Output: 6.00},
	"raptor-mini":            {Input: 0.25, Output: 2.00},
}
