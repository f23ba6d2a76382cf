// Tiny helpers for writing ONNX graphs with onnx-proto (used by the model build and by tests).
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const DT = {
  FLOAT: onnx.TensorProto.DataType.FLOAT,
  INT8: onnx.TensorProto.DataType.INT8,
  INT64: onnx.TensorProto.DataType.INT64,
} as const;

export type Dim = number | string;

export function valueInfo(name: string, elemType: number, dims: Dim[]): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** Float32 initializer stored as raw little-endian bytes. */
export function floatTensor(name: string, dims: number[], data: Float32Array): onnxProto.onnx.ITensorProto {
  return { name, dims, dataType: DT.FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** Int8 initializer: the quantised embedding table (per-row scales live in a float table). */
export function int8Tensor(name: string, dims: number[], data: Int8Array): onnxProto.onnx.ITensorProto {
  return { name, dims, dataType: DT.INT8, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

export function int64Tensor(name: string, dims: number[], data: number[]): onnxProto.onnx.ITensorProto {
  const buf = new BigInt64Array(data.map((x) => BigInt(x)));
  return { name, dims, dataType: DT.INT64, rawData: new Uint8Array(buf.buffer) };
}

type AttrValue = number | number[] | string;

export function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  attrs: Record<string, AttrValue> = {},
): onnxProto.onnx.INodeProto {
  const attribute: onnxProto.onnx.IAttributeProto[] = Object.entries(attrs).map(([name, v]) => {
    if (typeof v === 'string') return { name, type: onnx.AttributeProto.AttributeType.STRING, s: new TextEncoder().encode(v) };
    if (Array.isArray(v)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v };
    if (Number.isInteger(v)) return { name, type: onnx.AttributeProto.AttributeType.INT, i: v };
    return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: v };
  });
  return { opType, input: inputs, output: outputs, name: `${opType}_${outputs[0]}`, attribute };
}

export interface GraphSpec {
  name: string;
  nodes: onnxProto.onnx.INodeProto[];
  initializers: onnxProto.onnx.ITensorProto[];
  inputs: onnxProto.onnx.IValueInfoProto[];
  outputs: onnxProto.onnx.IValueInfoProto[];
  docString?: string;
  metadata?: Record<string, string>;
}

/** Serialise a graph as an opset-13 model (ReduceSum/Unsqueeze take axes as inputs there). */
export function encodeModel(g: GraphSpec): Uint8Array {
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'semantic-compression-service/scripts/models',
    producerVersion: '1',
    opsetImport: [{ domain: '', version: 13 }],
    docString: g.docString ?? '',
    metadataProps: Object.entries(g.metadata ?? {}).map(([key, value]) => ({ key, value })),
    graph: {
      name: g.name,
      node: g.nodes,
      initializer: g.initializers,
      input: g.inputs,
      output: g.outputs,
    },
  });
  return onnx.ModelProto.encode(model).finish();
}
