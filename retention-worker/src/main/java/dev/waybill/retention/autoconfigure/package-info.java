/**
 * Spring Boot auto-configuration of the retention worker: {@code waybill.retention.*} properties,
 * host selection and meters.
 */
@NullMarked
package dev.waybill.retention.autoconfigure;

import org.jspecify.annotations.NullMarked;
