// The C side of the trace agent, a library preloaded into a traced program: it starts the agent
// when the library loads, and sees every `_Block_copy` and `dlopen` of the program.

#ifndef CBLOCKSIGNATURETRACEAGENT_H
#define CBLOCKSIGNATURETRACEAGENT_H

#ifdef __cplusplus
extern "C" {
#endif

/// Whether the agent has started (its constructor has run the Swift side's start).
int bsta_started(void);

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATURETRACEAGENT_H
