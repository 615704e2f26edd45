package dev.waybill.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Adds a {@link WaybillTestHarness} bean to a {@code @SpringBootTest} context, reset before each test
 * method, and with {@code transport = IN_MEMORY} (or {@code waybill.test.transport=in-memory})
 * replaces the broker by the {@link InMemoryTransport}, so the test needs only PostgreSQL.
 *
 * @since 0.1
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("waybill.test")
public @interface AutoConfigureWaybillTest {

	/**
	 * The transport the relay publishes with; {@link TestTransport#BROKER}, the default, leaves
	 * {@code waybill.test.transport} to decide.
	 * @return the transport
	 */
	@PropertyMapping(skip = PropertyMapping.Skip.ON_DEFAULT_VALUE)
	TestTransport transport() default TestTransport.BROKER;

}
