package dev.waybill.outbox.rabbit.test;

import java.util.List;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * A real tracer wired as Spring Boot's tracing auto-configuration wires it: Micrometer Tracing over
 * the OpenTelemetry SDK, sampling every trace, W3C trace context and baggage propagation, and the
 * propagating sender and receiver handlers on an {@link ObservationRegistry}. Finished spans are
 * kept in memory.
 */
public final class TestTracing implements AutoCloseable {

	/** The baggage field the tests propagate. */
	public static final String BAGGAGE_FIELD = "tenant";

	private final InMemorySpanExporter exporter = InMemorySpanExporter.create();

	private final SdkTracerProvider provider;

	private final OtelTracer tracer;

	private final ObservationRegistry registry = ObservationRegistry.create();

	public TestTracing() {
		this.provider = SdkTracerProvider.builder()
			.setSampler(Sampler.alwaysOn())
			.addSpanProcessor(SimpleSpanProcessor.create(this.exporter))
			.build();
		OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
			.setTracerProvider(this.provider)
			.setPropagators(ContextPropagators.create(TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(),
					W3CBaggagePropagator.getInstance())))
			.build();
		io.opentelemetry.api.trace.Tracer otelTracer = sdk.getTracer("waybill-test");
		OtelCurrentTraceContext current = new OtelCurrentTraceContext();
		this.tracer = new OtelTracer(otelTracer, current, (event) -> {
		}, new OtelBaggageManager(current, List.of(BAGGAGE_FIELD), List.of()));
		OtelPropagator propagator = new OtelPropagator(sdk.getPropagators(), otelTracer);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
	}

	public ObservationRegistry registry() {
		return this.registry;
	}

	public Tracer tracer() {
		return this.tracer;
	}

	/**
	 * Returns the spans finished so far.
	 * @return the spans
	 */
	public List<SpanData> spans() {
		return this.exporter.getFinishedSpanItems();
	}

	@Override
	public void close() {
		this.provider.close();
	}

}
