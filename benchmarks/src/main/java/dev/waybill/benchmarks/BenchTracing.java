package dev.waybill.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * A real tracer as Spring Boot's tracing auto-configuration builds it with the OpenTelemetry
 * bridge: the OpenTelemetry SDK sampling every trace, W3C trace context and baggage propagation,
 * a batch span processor, and the propagating sender and receiver handlers on an
 * {@link ObservationRegistry}. The exporter does nothing, so the figures show what tracing costs
 * in the process, not a collector's network round trips. Counts the spans that ended.
 */
final class BenchTracing implements AutoCloseable {

	private final SdkTracerProvider provider;

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final AtomicLong ended = new AtomicLong();

	BenchTracing() {
		this.provider = SdkTracerProvider.builder()
			.setSampler(Sampler.alwaysOn())
			.addSpanProcessor(BatchSpanProcessor.builder(SpanExporter.composite()).build())
			.addSpanProcessor(new SpanProcessor() {

				@Override
				public void onStart(Context parentContext, ReadWriteSpan span) {
				}

				@Override
				public boolean isStartRequired() {
					return false;
				}

				@Override
				public void onEnd(ReadableSpan span) {
					BenchTracing.this.ended.incrementAndGet();
				}

				@Override
				public boolean isEndRequired() {
					return true;
				}

			})
			.build();
		OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
			.setTracerProvider(this.provider)
			.setPropagators(ContextPropagators.create(TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(),
					W3CBaggagePropagator.getInstance())))
			.build();
		io.opentelemetry.api.trace.Tracer otelTracer = sdk.getTracer("waybill-bench");
		OtelCurrentTraceContext current = new OtelCurrentTraceContext();
		OtelTracer tracer = new OtelTracer(otelTracer, current, (event) -> {
		}, new OtelBaggageManager(current, List.of(), List.of()));
		OtelPropagator propagator = new OtelPropagator(sdk.getPropagators(), otelTracer);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
					new DefaultTracingObservationHandler(tracer)));
	}

	ObservationRegistry registry() {
		return this.registry;
	}

	/**
	 * Returns how many spans ended so far.
	 * @return the count
	 */
	long spansEnded() {
		return this.ended.get();
	}

	@Override
	public void close() {
		this.provider.shutdown().join(10, TimeUnit.SECONDS);
	}

}
