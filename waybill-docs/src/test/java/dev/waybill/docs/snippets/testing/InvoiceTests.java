package dev.waybill.docs.snippets.testing;

import org.springframework.boot.test.context.SpringBootTest;

import dev.waybill.test.AutoConfigureWaybillTest;

// tag::stand-in[]
@SpringBootTest(properties = {
    "spring.rabbitmq.virtual-host=billing-tests",
    "waybill.rabbit.topology.exchanges[0].name=billing.invoice-issued",  // declared fanout, as
    "waybill.rabbit.topology.exchanges[0].type=fanout",                 // publish would declare it
    "waybill.rabbit.topology.queues[0].name=billing-tests.invoices",
    "waybill.rabbit.topology.queues[0].arguments.x-max-length=100",    // keeps it from growing
    "waybill.rabbit.topology.bindings[0].exchange=billing.invoice-issued",
    "waybill.rabbit.topology.bindings[0].queue=billing-tests.invoices" })
@AutoConfigureWaybillTest
// end::stand-in[]
class InvoiceTests {
}
