package prompt

import "strings"

// Words are common English words that the usual BPE tokenizers (Llama,
// Qwen, GPT, Mistral) encode as one token each with their leading space.
// Not every tokenizer agrees: bench keeps only those the server's
// tokenizer counts as one (SingleTokenWords), the daemon measures its
// prompt as a whole, so neither depends on the list being exact.
var Words = strings.Fields(`time year people way day man thing woman life child world school state
	family student group country problem hand part place case week company system program question work
	government number night point home water room mother area money story fact month lot right study book
	eye job word business issue side kind head house service friend father power hour game line end member
	law car city name the of and to in is that for it as was with be by on not he this are or his from at
	which but have an had they you were their one all we can her has there been if more when will would
	who so no she other its may these them than some him only new could also any my first two about most
	over such into very then do what like just now out up made many how make well even back use our after
	years being where much under same must own good last great before old still long down while set off
	small large few each high every next open form come help keep turn`)

// ShortWords are one token in any tokenizer: a prefix made of a fixed
// number of them always has the same length (the daemon's cold probes
// start with one, unique to the probe).
var ShortWords = strings.Fields("a an the of to in on at by for and or is it as we")
